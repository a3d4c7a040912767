import type { PrimitiveAnnotation } from '../core/primitive-metadata.js';
import { PolicyOptionError } from '../core/errors.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { createDecisionLog, type DecisionEvent, type DecisionLog } from './decision-events.js';
import { createFlagResolver, type FlagResolver, type GateFlagOptions } from './flag-resolution.js';
import { validateMetadataOption } from './metadata.js';
import { createPaginator, type Paginator } from './pagination.js';
import type { MissingCapabilities } from './policy-view.js';
import { defaultVersionSeparator } from './versioning.js';

/** How a denied call, get, read or completion surfaces. */
export type DeniedMode = 'hide' | 'explain';

/** The options both gates take. */
export interface SharedGateOptions {
  /** A compiled Policy, or a policy document to compile now (compile once outside a per-request factory). */
  policy: Policy | PolicyDocument;
  /** Annotations by `tool:NAME`, `prompt:NAME`, `resource:URI`, `template:NAME`; fields override `_meta['mcp-gate']`. */
  metadata?: Record<string, PrimitiveAnnotation>;
  /** `'hide'` (default): denied ≡ unknown. `'explain'`: the decision's message, for trusted internal deployments. */
  denied?: DeniedMode;
  /** Publish required capabilities as `_meta['io.modelcontextprotocol/requiredCapabilities']` in list results. */
  exposeRequirements?: boolean;
  /** How capability requirements treat a request whose client declared no capabilities (stateless 2025-era HTTP). Default `'deny'`. */
  onMissingCapabilities?: MissingCapabilities;
  /** Page size of list results; without it every list is one page, as in the SDK. */
  pageSize?: number;
  /** Separator of versioned tool keys (`search__2.0.0`). Default `'__'`. */
  versionSeparator?: string;
  /** Receives errors the gate cannot throw: invalid metadata registered later, failed notifications, a throwing `onDecision`. */
  onError?: (error: Error) => void;
  /**
   * Called once per gated answer: each call, get, read or completion of a named primitive
   * (allowed or hidden), and each list request in summary. For decision logs; the event carries
   * the whole request context, so choose what to keep. The explanation (`reason`, `ruleId`, `message`) is computed when first read.
   */
  onDecision?: (event: DecisionEvent) => void;
  /**
   * How the feature flags a policy reads (`{"var": "flags.<key>"}`) are resolved: an OpenFeature
   * client, a timeout (default 200 ms) and the headers passed to the provider. Required when the
   * policy reads flags; a flag that errs or times out holds the policy's declared default.
   */
  flags?: GateFlagOptions;
}

/** Options after validation, shared by every server a gate is installed on. */
export interface GateSettings {
  readonly annotations: ReadonlyMap<string, PrimitiveAnnotation>;
  readonly denied: DeniedMode;
  readonly exposeRequirements: boolean;
  readonly onMissingCapabilities: MissingCapabilities;
  readonly paginator: Paginator;
  readonly versionSeparator: string;
  readonly reportError: (error: Error) => void;
  readonly decisions: DecisionLog;
  /** Resolves the flags a policy reads; undefined without the `flags` option. */
  readonly flags: FlagResolver | undefined;
}

/**
 * Validates the shared options at once, so a typo fails when the gate is created and names the
 * option. `cursorSecret` keys list cursors (a random one per gate when undefined).
 */
export function readGateSettings(options: SharedGateOptions, cursorSecret?: string): GateSettings {
  if (options === null || typeof options !== 'object') throw new PolicyOptionError('mcp-gate: options must be an object with a "policy"');
  const onMissingCapabilities = oneOf(options.onMissingCapabilities, 'onMissingCapabilities', ['deny', 'allow']);
  const versionSeparator = options.versionSeparator ?? defaultVersionSeparator;
  if (typeof versionSeparator !== 'string' || versionSeparator === '') throw new PolicyOptionError('mcp-gate: option "versionSeparator" must be a non-empty string');
  const { onError, onDecision } = options;
  if (onDecision !== undefined && typeof onDecision !== 'function') throw new PolicyOptionError('mcp-gate: option "onDecision" must be a function');
  const reportError = (error: Error) => onError?.(error);
  return {
    annotations: validateMetadataOption(options.metadata),
    denied: oneOf(options.denied, 'denied', ['hide', 'explain']),
    exposeRequirements: options.exposeRequirements === true,
    onMissingCapabilities,
    paginator: createPaginator(options.pageSize, cursorSecret),
    versionSeparator,
    reportError,
    decisions: createDecisionLog(onDecision, reportError),
    flags: createFlagResolver(options.flags, reportError),
  };
}

/** An option that takes one of a few strings; the first is the default. */
export function oneOf<T extends string>(value: unknown, name: string, allowed: readonly [T, ...T[]]): T {
  if (value === undefined) return allowed[0];
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  throw new PolicyOptionError(`mcp-gate: option "${name}" must be ${allowed.map((item) => JSON.stringify(item)).join(' or ')}, got ${JSON.stringify(value)}`);
}
