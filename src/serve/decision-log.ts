import type { FlagValue, RequestContext } from '../core/context.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';

/** The fields of the gate's `onDecision` event that the log reads (mcp-gate/sdk's DecisionEvent has them all). */
export interface DecisionLogInput {
  readonly time: string;
  readonly requestId: string | number | undefined;
  readonly method: string;
  readonly primitive?: { readonly kind: PrimitiveKind; readonly name: string } | undefined;
  readonly counts?: { readonly visible: number; readonly hidden: number } | undefined;
  readonly allowed: boolean;
  readonly reason: string;
  readonly ruleId?: string | undefined;
  readonly message: string;
  readonly policyRevision: string;
  /** The flags the policy read for this decision (the gate's DecisionEvent `flags`). */
  readonly flags?: { readonly values: Readonly<Record<string, FlagValue>>; readonly fallbacks: readonly { readonly key: string; readonly why: string }[] } | undefined;
  readonly context: RequestContext;
}

/** One line of the decision log, in the order its fields are written. */
export interface DecisionRecord {
  readonly time: string;
  readonly requestId: string | number | null;
  readonly method: string;
  readonly primitive?: { readonly kind: PrimitiveKind; readonly name: string };
  readonly allowed: boolean;
  readonly reason: string;
  readonly ruleId?: string;
  readonly message?: string;
  readonly visible?: number;
  readonly hidden?: number;
  /** The value of each flag the policy reads, as the decision used it. */
  readonly flags?: Readonly<Record<string, FlagValue>>;
  /** The flags among them that held their declared default, each with why (`not resolved within 200 ms`, `FLAG_NOT_FOUND`). */
  readonly flagFallbacks?: Readonly<Record<string, string>>;
  readonly policyRevision: string;
  readonly endpoint: string;
  readonly client?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface DecisionLogOptions {
  /** Receives one JSON line, newline included. */
  readonly write: (line: string) => void;
  /**
   * Header names (any case) whose values may be logged; every other header stays out. A
   * credential header (see `isCredentialHeader`) among them is logged as `"[redacted]"`.
   */
  readonly logHeaders?: readonly string[];
  /** Logs credential headers named in `logHeaders` as they came, tokens and all. Default false. */
  readonly logCredentialHeaders?: boolean;
}

/** What a credential header's value is logged as: its presence is kept, its value is not. */
export const redactedValue = '[redacted]';

const credentialHeaderNames: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-access-token',
  'x-refresh-token',
  'x-csrf-token',
  'x-xsrf-token',
  'x-amz-security-token',
  'mcp-session-id',
]);
// A word of a header name that says it carries a secret (x-goog-api-key, x-hub-signature-256,
// x-vault-token, x-client-secret, x-session-id). Redacting a harmless header by mistake costs a
// log value; logging a token by mistake gives it to everyone who reads the log.
const credentialWord = /(?:^|-)(?:auth|authorization|cookie|token|secret|password|passwd|credentials?|api-?key|session|signature)(?:-|$)/;

/** Whether a header (lower case) carries a credential, so its value stays out of the log unless asked for. */
export function isCredentialHeader(name: string): boolean {
  return credentialHeaderNames.has(name) || credentialWord.test(name.replaceAll('_', '-'));
}

/**
 * Keeps what says why a request saw what it saw, and nothing the caller sent as data: header
 * values only when allow-listed by name (credential headers as "[redacted]" unless asked for),
 * never auth (subject, client id, scopes, claims), never arguments, never the session id (on
 * Streamable HTTP it is what routes requests to a session).
 * A decision's sentence is kept only for rules and the default, whose text the policy author
 * wrote: a requirement's names the header value a primitive requires, an error's may quote data.
 */
export function toDecisionRecord(event: DecisionLogInput, logHeaders: ReadonlySet<string>, redactedHeaders: ReadonlySet<string> = new Set()): DecisionRecord {
  const { context, primitive, ruleId, counts } = event;
  const headers: Record<string, string> = {};
  for (const name of logHeaders) {
    const value = context.request.headers[name];
    if (value !== undefined) headers[name] = redactedHeaders.has(name) ? redactedValue : value;
  }
  return {
    time: event.time,
    requestId: event.requestId ?? null,
    method: event.method,
    ...(primitive === undefined ? {} : { primitive: { kind: primitive.kind, name: primitive.name } }),
    allowed: event.allowed,
    reason: event.reason,
    ...(ruleId === undefined ? {} : { ruleId }),
    ...(event.reason === 'rule' || event.reason === 'default' ? { message: event.message } : {}),
    ...(counts === undefined ? {} : { visible: counts.visible, hidden: counts.hidden }),
    ...flagFields(event.flags),
    policyRevision: event.policyRevision,
    endpoint: context.request.endpoint,
    ...(context.client.name === undefined ? {} : { client: context.client.name }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  };
}

/**
 * The flags a decision read, and why any held its default. Only the policy's own flags reach
 * the event; of a fallback's reason the log keeps the part before the first colon (an error
 * code, `not resolved within 200 ms`): a provider's error message may quote the evaluation
 * context, which holds the caller's subject and headers.
 */
function flagFields(flags: DecisionLogInput['flags']): Pick<DecisionRecord, 'flags' | 'flagFallbacks'> {
  if (flags === undefined) return {};
  const fallbacks: Record<string, string> = {};
  for (const { key, why } of flags.fallbacks) fallbacks[key] = why.split(':', 1)[0]!;
  return { flags: flags.values, ...(flags.fallbacks.length === 0 ? {} : { flagFallbacks: fallbacks }) };
}

/** An `onDecision` handler that writes one JSON line per decision. */
export function createDecisionLogger(options: DecisionLogOptions): (event: DecisionLogInput) => void {
  const logHeaders = new Set((options.logHeaders ?? []).map((name) => name.trim().toLowerCase()).filter((name) => name !== ''));
  const redactedHeaders = new Set(options.logCredentialHeaders === true ? [] : [...logHeaders].filter(isCredentialHeader));
  return function logDecision(event) {
    options.write(`${JSON.stringify(toDecisionRecord(event, logHeaders, redactedHeaders))}\n`);
  };
}
