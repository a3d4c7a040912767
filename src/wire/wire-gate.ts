import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { readGateSettings, type SharedGateOptions } from '../adapter/gate-options.js';
import { createPolicyHolder } from '../adapter/gate-runtime.js';
import { compileOverlay, emptyOverlay, type Overlay } from './overlay.js';
import { SharedSnapshots } from './snapshot.js';
import { WireConnection, type WireSessionHooks } from './wire-connection.js';

/** The options of a wire gate: the shared ones, with an overlay in place of `metadata`, and hidden always ≡ unknown. */
export interface WireGateOptions extends Omit<SharedGateOptions, 'metadata' | 'denied'> {
  /** Annotations for primitives whose list items carry no `_meta['mcp-gate']`: a compiled Overlay or an overlay document. */
  overlay?: Overlay | unknown;
}

/** One policy in front of any number of upstream connections (one per downstream session in `mcp-gate proxy`). */
export interface WireGate {
  readonly policy: Policy;
  readonly overlay: Overlay;
  /** Swaps the policy for every connection; resolves once list_changed went to each session whose visible lists changed. */
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  /** Gates one connected upstream client; resolves once its lists are fetched. */
  attach(client: Client, hooks: WireSessionHooks): Promise<WireConnection>;
  /**
   * Stops following the flag provider: with the `flags` option, a flag that changes there sends
   * list_changed to the sessions whose lists it changed, until the gate is closed (or collected).
   * The gate goes on deciding.
   */
  close(): void;
}

export function createWireGate(options: WireGateOptions): WireGate {
  const settings = readGateSettings({ ...options, metadata: undefined, denied: 'hide' } as SharedGateOptions);
  const holder = createPolicyHolder(options.policy, settings);
  const overlay = isOverlay(options.overlay) ? options.overlay : options.overlay === undefined ? emptyOverlay : compileOverlay(options.overlay);
  // Connections whose upstreams list the same primitives share one snapshot of them.
  const snapshots = new SharedSnapshots(overlay, settings);
  return {
    get policy() {
      return holder.policy;
    },
    overlay,
    setPolicy: (next) => holder.setPolicy(next),
    close: () => holder.close(), // flag changes hook
    async attach(client, hooks) {
      const connection = new WireConnection(client, holder.runtime, overlay, hooks, snapshots);
      await connection.ready;
      return connection;
    },
  };
}

function isOverlay(value: unknown): value is Overlay {
  return value !== null && typeof value === 'object' && typeof (value as Overlay).annotationFor === 'function';
}
