// The era bridge's answer to 2026-07-28's `input_required`. A 2026-07-28 server cannot send its
// client a request (sampling, elicitation, roots); a tool, prompt or resource that needs input
// answers `input_required` with the requests embedded, and the client retries with the answers.
// A 2025-era session's client knows none of that: the bridge sends each embedded request to it
// as the 2025 server→client request it is, then retries upstream with the answers — what
// `@modelcontextprotocol/server` 2.4's own legacy shim does for a 2025-era request
// (LegacyInputRequiredShim), with its round cap and its capability check.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { RelayedError } from '../wire/relayed-error.js';

/** The methods whose 2026-07-28 result may be `input_required` (the multi-round-trip methods). */
const multiRoundTripMethods: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Rounds of input a request may ask for before it fails (the v2 server shim's default, so an upstream in a loop cannot hold a session). */
const maxRounds = 8;

/** The pause before retrying a round that asked nothing of the client (requestState only: the upstream is shedding load). */
const stateOnlyPacingMs = 250;

/** How one bridged request gets its input: from the session's client, and upstream again. */
export interface InputRequiredSides {
  /** What the session's client declared in its initialize. */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Sends one server→client request to the session's client, on the stream of the request it is for. */
  ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** The downstream request again with these params, gated and forwarded as any request is. */
  retry(params: Record<string, unknown>): Promise<unknown>;
  readonly signal: AbortSignal;
}

interface InputRequired {
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}

function isInputRequired(result: unknown): result is InputRequired {
  return result !== null && typeof result === 'object' && (result as { resultType?: unknown }).resultType === 'input_required';
}

/**
 * The final answer to a request whose first answer was `first`: `first` itself unless it is
 * `input_required`, else whatever the upstream answers once the client gave the input it asked
 * for (round after round). A request the client cannot answer (it did not declare the
 * capability) fails at once with `-32021`, as a 2026-07-28 server refuses it; so does one the
 * client refused or failed, with its reason.
 */
export async function fulfilInputRequired(method: string, params: Record<string, unknown> | undefined, first: unknown, sides: InputRequiredSides): Promise<unknown> {
  if (!multiRoundTripMethods.has(method)) return first;
  let result = first;
  for (let round = 1; isInputRequired(result); round++) {
    if (round > maxRounds) throw new RelayedError(ErrorCode.InternalError, `Multi-round-trip request '${method}' still required input after ${maxRounds} rounds`);
    const entries = Object.entries(result.inputRequests ?? {});
    const requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
    if (entries.length === 0 && requestState === undefined) {
      throw new RelayedError(ErrorCode.InternalError, `The upstream answered ${method} with input_required carrying neither inputRequests nor requestState`);
    }
    // Every request is checked before any goes to the client: none is asked when one cannot be.
    const embedded = entries.map(([key, entry]) => [key, checkedInputRequest(method, key, entry, sides.clientCapabilities)] as const);
    let inputResponses: Record<string, unknown> | undefined;
    if (embedded.length > 0) {
      try {
        inputResponses = Object.fromEntries(await Promise.all(embedded.map(async ([key, request]) => [key, await sides.ask(request.method, request.params, sides.signal)])));
      } catch (error) {
        if (sides.signal.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new RelayedError(ErrorCode.InternalError, `Fulfilling input required by '${method}' failed: ${reason}`);
      }
    } else {
      await pause(stateOnlyPacingMs, sides.signal);
    }
    result = await sides.retry({ ...params, ...(inputResponses === undefined ? {} : { inputResponses }), ...(requestState === undefined ? {} : { requestState }) });
  }
  return result;
}

interface EmbeddedRequest {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

/** One embedded request as its 2025 server→client request, or the error that refuses it. */
function checkedInputRequest(method: string, key: string, entry: unknown, declared: Readonly<Record<string, unknown>>): EmbeddedRequest {
  const embedded = (entry !== null && typeof entry === 'object' ? entry : {}) as { method?: unknown; params?: unknown };
  const params = embedded.params !== null && typeof embedded.params === 'object' ? (embedded.params as Record<string, unknown>) : undefined;
  const kind = typeof embedded.method === 'string' ? embedded.method : undefined;
  const required = kind === undefined ? undefined : requiredCapability(kind, params);
  if (kind === undefined || required === undefined) {
    throw new RelayedError(
      ErrorCode.InternalError,
      `The upstream answered ${method} with an input request '${key}' that is not elicitation/create, sampling/createMessage or roots/list`,
    );
  }
  const [capability, member] = required;
  if (!isDeclared(declared, capability, member)) {
    throw new RelayedError(-32021, `Cannot request input '${key}' (${kind}): the client of this 2025-era session did not declare the required capability`, {
      requiredCapabilities: { [capability]: member === undefined ? {} : { [member]: {} } },
    });
  }
  // 2025-11-25's URL-mode elicitation needs an id that 2026-07-28's has not; one is made, as the v2 server's shim does.
  if (kind === 'elicitation/create' && params?.['mode'] === 'url' && params['elicitationId'] === undefined) {
    return { method: kind, params: { ...params, elicitationId: globalThis.crypto.randomUUID() } };
  }
  return { method: kind, params };
}

function isDeclared(declared: Readonly<Record<string, unknown>>, capability: string, member: string | undefined): boolean {
  const value = declared[capability];
  if (value === undefined || value === null) return false;
  if (member === undefined) return true;
  const members = value as Record<string, unknown>;
  // A bare `elicitation: {}` declares form mode (its 2025 meaning, before modes), as the v2 SDK reads it.
  return members[member] !== undefined || (capability === 'elicitation' && member === 'form' && Object.keys(members).length === 0);
}

/** The capability (and sub-capability) an embedded request needs of the client; undefined for a method that is not one. */
function requiredCapability(method: string, params: Record<string, unknown> | undefined): readonly [string, string | undefined] | undefined {
  switch (method) {
    case 'elicitation/create':
      return ['elicitation', params?.['mode'] === 'url' ? 'url' : 'form'];
    case 'sampling/createMessage':
      return ['sampling', params?.['tools'] !== undefined || params?.['toolChoice'] !== undefined ? 'tools' : undefined];
    case 'roots/list':
      return ['roots', undefined];
    default:
      return undefined;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
