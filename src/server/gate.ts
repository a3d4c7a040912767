import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import { PolicyOptionError } from '../core/errors.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { oneOf, readGateSettings, type SharedGateOptions } from '../adapter/gate-options.js';
import { createGateFactory, isGate } from '../adapter/gate-factory.js';
import type { MissingCapabilityMode, ServerGateSettings } from './gate-settings.js';
import { Installation } from './installation.js';

/** Options of a gate for McpServer 2.4: those every mcp-gate adapter takes (docs/sdk.md), plus the v2-only ones below (docs/server.md). */
export interface GateOptions extends SharedGateOptions, InstallOptions {
  /** `'error'`: a call hidden only by a missing client capability answers -32021 (reveals the primitive). Default `'hide'`. */
  missingCapability?: MissingCapabilityMode;
  /**
   * Keys list cursors. Defaults to a constant so any instance accepts any instance's cursor (no
   * sticky sessions); a cursor still only opens the list it was issued for.
   */
  cursorSecret?: string;
}

/** Options of `gate.install(server, options)`: what the gate needs to know about the request that created this server. */
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
  /**
   * Stops following the flag provider: with the `flags` option, a flag that changes there sends
   * list_changed to the sessions whose lists it changed, until the gate is closed (or collected).
   * The gate goes on deciding. Optional so that a Gate of your own (a no-op one) needs none;
   * every gate `createGate` makes has it.
   */
  close?(): void;
}

const defaultCursorSecret = 'mcp-gate/server';

const createServerGate = createGateFactory<McpServer, GateOptions, InstallOptions, ServerGateSettings>({
  readSettings(options) {
    const cursorSecret = options?.cursorSecret ?? defaultCursorSecret;
    if (typeof cursorSecret !== 'string') throw new PolicyOptionError('mcp-gate: option "cursorSecret" must be a string');
    return {
      ...readGateSettings(options, cursorSecret),
      missingCapability: oneOf(options.missingCapability, 'missingCapability', ['hide', 'error']),
    };
  },
  install: (server, runtime, installOptions) => void new Installation(server, runtime, installOptions?.request),
});

/** Creates a gate without installing it: compile once, then `install` it on each McpServer, e.g. per request. */
export function createGate(options: GateOptions): Gate {
  return createServerGate(options);
}

/**
 * Puts a policy in front of a v2 McpServer: lists show only what the request may use, and calls,
 * gets, reads and completions of anything else answer exactly as for a name never registered.
 */
export function gate(server: McpServer, options: GateOptions | Gate, installOptions?: InstallOptions): Gate {
  const installed = isGate<Gate>(options) ? options : createGate(options);
  installed.install(server, installOptions ?? (isGate<Gate>(options) ? undefined : options));
  return installed;
}
