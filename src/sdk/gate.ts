import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { createGateFactory, isGate } from '../adapter/gate-factory.js';
import { readGateSettings, type SharedGateOptions } from '../adapter/gate-options.js';
import { Installation } from './installation.js';

/** Options of a gate for McpServer 1.32: those every mcp-gate adapter takes (docs/sdk.md). */
export type GateOptions = SharedGateOptions;

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
  /**
   * Stops following the flag provider: with the `flags` option, a flag that changes there sends
   * list_changed to the sessions whose lists it changed, until the gate is closed (or collected).
   * The gate goes on deciding. Optional so that a Gate of your own (a no-op one) needs none;
   * every gate `createGate` makes has it.
   */
  close?(): void;
}

const createSdkGate = createGateFactory<McpServer, GateOptions, never, ReturnType<typeof readGateSettings>>({
  readSettings: (options) => readGateSettings(options),
  install: (server, runtime) => void new Installation(server, runtime),
});

/** Creates a gate without installing it; `install` it on each McpServer it should guard. */
export function createGate(options: GateOptions): Gate {
  return createSdkGate(options);
}

/**
 * Puts a policy in front of an McpServer: lists show only what the request may use, and calls,
 * gets, reads and completions of anything else answer exactly as for a name never registered.
 */
export function gate(server: McpServer, options: GateOptions | Gate): Gate {
  const installed = isGate<Gate>(options) ? options : createGate(options);
  installed.install(server);
  return installed;
}
