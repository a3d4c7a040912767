import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { PrimitiveAnnotation } from '../core/context.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { changedLists, SessionContexts } from '../adapter/list-changes.js';
import { validateMetadataOption } from '../adapter/metadata.js';
import { createPaginator } from '../adapter/pagination.js';
import { resolvePolicy } from '../adapter/policy-input.js';
import { createPolicyView, type MissingCapabilities, type PolicyView } from '../adapter/policy-view.js';
import { defaultVersionSeparator } from '../adapter/versioning.js';
import type { DeniedMode, GateRuntime, GateSettings, MissingCapabilityMode } from './gate-settings.js';
import { Installation } from './installation.js';
import { PolicyOptionError } from '../core/errors.js';

export interface GateOptions extends InstallOptions {
  /** A compiled Policy, or a policy document to compile now (compile once outside a per-request factory). */
  policy: Policy | PolicyDocument;
  /** Annotations by `tool:NAME`, `prompt:NAME`, `resource:URI`, `template:NAME`; fields override `_meta['mcp-gate']`. */
  metadata?: Record<string, PrimitiveAnnotation>;
  /** `'hide'` (default): denied ≡ unknown. `'explain'`: the decision's message, for trusted internal deployments. */
  denied?: DeniedMode;
  /** `'error'`: a call hidden only by a missing client capability answers -32021 (reveals the primitive). Default `'hide'`. */
  missingCapability?: MissingCapabilityMode;
  /** Publish required capabilities as `_meta['io.modelcontextprotocol/requiredCapabilities']` in list results. */
  exposeRequirements?: boolean;
  /** How capability requirements treat a 2025-era stateless request, which declares no capabilities. Default `'deny'`. */
  onMissingCapabilities?: MissingCapabilities;
  /** Page size of list results; without it every list is one page, as in the SDK. */
  pageSize?: number;
  /**
   * Keys list cursors. Defaults to a constant so any instance accepts any instance's cursor (no
   * sticky sessions); a cursor still only opens the list it was issued for.
   */
  cursorSecret?: string;
  /** Separator of versioned tool keys (`search__2.0.0`). Default `'__'`. */
  versionSeparator?: string;
  /** Receives errors the gate cannot throw: invalid metadata registered later, failed notifications. */
  onError?: (error: Error) => void;
}

export interface InstallOptions {
  /**
   * Inside `createMcpHandler`'s factory: the factory's context. `createMcpHandler` checks scope
   * challenges and `Mcp-Param-*` headers before any handler runs; with this the gate decides
   * those checks from the same headers, URL and auth as the handlers, so a hidden tool stays hidden.
   */
  request?: McpRequestContext;
}

/** A policy in front of one or more v2 McpServers. */
export interface Gate {
  readonly policy: Policy;
  /**
   * Swaps the policy atomically: requests already running finish under the old one. Resolves once
   * `list_changed` went to every 2025-era session whose visible set changed. Stateless 2026-07-28
   * clients have no session: publish the change on your handler's `notify` if they subscribe.
   */
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  /** Gates one more server (for example the one a `createMcpHandler` factory just built). */
  install(server: McpServer, options?: InstallOptions): void;
}

const gatedServers = new WeakSet<McpServer>();
const defaultCursorSecret = 'mcp-gate/server';

/** Creates a gate without installing it: compile once, then `install` it on each McpServer, e.g. per request. */
export function createGate(options: GateOptions): Gate {
  if (options === null || typeof options !== 'object') throw new PolicyOptionError('mcp-gate: options must be an object with a "policy"');
  const onMissingCapabilities = oneOf(options.onMissingCapabilities, 'onMissingCapabilities', ['deny', 'allow'] as const);
  const versionSeparator = options.versionSeparator ?? defaultVersionSeparator;
  if (typeof versionSeparator !== 'string' || versionSeparator === '') throw new PolicyOptionError('mcp-gate: option "versionSeparator" must be a non-empty string');
  const cursorSecret = options.cursorSecret ?? defaultCursorSecret;
  if (typeof cursorSecret !== 'string') throw new PolicyOptionError('mcp-gate: option "cursorSecret" must be a string');
  const onError = options.onError;
  const settings: GateSettings = {
    annotations: validateMetadataOption(options.metadata),
    denied: oneOf(options.denied, 'denied', ['hide', 'explain'] as const),
    missingCapability: oneOf(options.missingCapability, 'missingCapability', ['hide', 'error'] as const),
    exposeRequirements: options.exposeRequirements === true,
    paginator: createPaginator(options.pageSize, cursorSecret),
    versionSeparator,
    reportError: (error) => onError?.(error),
  };
  const compile = (input: unknown): PolicyView => createPolicyView(resolvePolicy(input, 'policy', { onMissingCapabilities }), onMissingCapabilities);
  let view = compile(options.policy);
  const sessions = new SessionContexts<object>((session) => (session as Installation).isOpen());
  const runtime: GateRuntime = { currentView: () => view, settings, sessions };

  return {
    get policy() {
      return view.policy;
    },
    async setPolicy(next) {
      const before = view;
      const after = compile(next);
      view = after;
      const notifications: Promise<void>[] = [];
      for (const [session, context] of sessions.open()) {
        const installation = session as Installation;
        for (const list of changedLists(installation.catalog(), before, after, context)) notifications.push(installation.notify(list));
      }
      await Promise.all(notifications);
    },
    install(server, installOptions) {
      if (gatedServers.has(server)) throw new PolicyOptionError('mcp-gate: this McpServer is already gated');
      new Installation(server, runtime, installOptions?.request);
      gatedServers.add(server);
    },
  };
}

/**
 * Puts a policy in front of a v2 McpServer: lists show only what the request may use, and calls,
 * gets, reads and completions of anything else answer exactly as for a name never registered.
 */
export function gate(server: McpServer, options: GateOptions | Gate, installOptions?: InstallOptions): Gate {
  const installed = isGate(options) ? options : createGate(options);
  installed.install(server, installOptions ?? (isGate(options) ? undefined : options));
  return installed;
}

function isGate(value: GateOptions | Gate): value is Gate {
  return typeof (value as Gate).install === 'function' && typeof (value as Gate).setPolicy === 'function';
}

function oneOf<T extends string>(value: unknown, name: string, allowed: readonly [T, ...T[]]): T {
  if (value === undefined) return allowed[0];
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  throw new PolicyOptionError(`mcp-gate: option "${name}" must be ${allowed.map((item) => JSON.stringify(item)).join(' or ')}, got ${JSON.stringify(value)}`);
}
