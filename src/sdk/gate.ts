import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PrimitiveAnnotation } from '../core/context.js';
import type { Policy } from '../core/policy/types.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import { changedLists, SessionContexts } from '../adapter/list-changes.js';
import { validateMetadataOption } from '../adapter/metadata.js';
import { createPaginator } from '../adapter/pagination.js';
import { resolvePolicy } from '../adapter/policy-input.js';
import { createPolicyView, type MissingCapabilities, type PolicyView } from '../adapter/policy-view.js';
import { defaultVersionSeparator } from '../adapter/versioning.js';
import type { DeniedMode, GateRuntime, GateSettings } from './gate-settings.js';
import { Installation } from './installation.js';
import { PolicyOptionError } from '../core/errors.js';

export interface GateOptions {
  /** A compiled Policy, or a policy document to compile now. */
  policy: Policy | PolicyDocument;
  /** Annotations by `tool:NAME`, `prompt:NAME`, `resource:URI`, `template:NAME`; fields override `_meta['mcp-gate']`. */
  metadata?: Record<string, PrimitiveAnnotation>;
  /** `'hide'` (default): denied ≡ unknown. `'explain'`: the decision's message, for trusted internal deployments. */
  denied?: DeniedMode;
  /** Publish required capabilities as `_meta['io.modelcontextprotocol/requiredCapabilities']` in list results. */
  exposeRequirements?: boolean;
  /** How capability requirements treat a request whose client never declared capabilities (stateless HTTP). Default `'deny'`. */
  onMissingCapabilities?: MissingCapabilities;
  /** Page size of list results; without it every list is one page, as in the SDK. */
  pageSize?: number;
  /** Separator of versioned tool keys (`search__2.0.0`). Default `'__'`. */
  versionSeparator?: string;
  /** Receives errors the gate cannot throw: invalid metadata registered later, failed notifications. */
  onError?: (error: Error) => void;
}

/** A policy in front of one or more McpServers. */
export interface Gate {
  /** The policy in force. */
  readonly policy: Policy;
  /**
   * Swaps the policy atomically: requests already running finish under the old one. Resolves
   * once `list_changed` went to every connected session whose visible set changed (only those).
   */
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  /** Gates one more server (for example one McpServer per HTTP session) under this gate's policy. */
  install(server: McpServer): void;
}

const gatedServers = new WeakSet<McpServer>();

/** Creates a gate without installing it; `install` it on each McpServer it should guard. */
export function createGate(options: GateOptions): Gate {
  if (options === null || typeof options !== 'object') throw new PolicyOptionError('mcp-gate: options must be an object with a "policy"');
  const onMissingCapabilities = options.onMissingCapabilities ?? 'deny';
  if (onMissingCapabilities !== 'deny' && onMissingCapabilities !== 'allow') {
    throw new PolicyOptionError(`mcp-gate: option "onMissingCapabilities" must be "deny" or "allow", got ${JSON.stringify(onMissingCapabilities)}`);
  }
  const denied = options.denied ?? 'hide';
  if (denied !== 'hide' && denied !== 'explain') {
    throw new PolicyOptionError(`mcp-gate: option "denied" must be "hide" or "explain", got ${JSON.stringify(denied)}`);
  }
  const versionSeparator = options.versionSeparator ?? defaultVersionSeparator;
  if (typeof versionSeparator !== 'string' || versionSeparator === '') {
    throw new PolicyOptionError('mcp-gate: option "versionSeparator" must be a non-empty string');
  }
  const onError = options.onError;
  const settings: GateSettings = {
    annotations: validateMetadataOption(options.metadata),
    denied,
    exposeRequirements: options.exposeRequirements === true,
    paginator: createPaginator(options.pageSize),
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
    install(server) {
      if (gatedServers.has(server)) throw new PolicyOptionError('mcp-gate: this McpServer is already gated');
      new Installation(server, runtime);
      gatedServers.add(server);
    },
  };
}

/**
 * Puts a policy in front of an McpServer: lists show only what the request may use, and calls,
 * gets, reads and completions of anything else answer exactly as for a name never registered.
 */
export function gate(server: McpServer, options: GateOptions | Gate): Gate {
  const installed = isGate(options) ? options : createGate(options);
  installed.install(server);
  return installed;
}

function isGate(value: GateOptions | Gate): value is Gate {
  return typeof (value as Gate).install === 'function' && typeof (value as Gate).setPolicy === 'function';
}
