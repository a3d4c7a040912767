import type { Policy } from '../core/policy/types.js';
import type { Caller } from './callers.js';
import type { CallerRequests, ResourceUris } from './probe.js';
import type { AnyMcpServer, GateAdapter, RegisteredPrimitive } from './registry.js';

/** One caller served by fresh instances of the user's server behind one gate. */
export interface DriverConnection {
  readonly requests: CallerRequests;
  /** The server's registrations, read before the gate was installed. */
  readonly registry: readonly RegisteredPrimitive[];
  /** Registry changes and `list_changed` notifications the caller's traffic caused, one line each. */
  changes(): string[];
  close(): Promise<void>;
}

/** A gate as a driver holds it: its policy, and a way to serve one caller through it. */
export interface DrivenGate {
  readonly policy: Policy;
  connect(caller: Caller): Promise<DriverConnection>;
}

export interface DriverSettings {
  /** Milliseconds any one request may take. */
  readonly timeout: number;
}

/**
 * How the shared invariants reach one flavour of McpServer: which gate, which transport, how the
 * SDK treats URIs. Drivers translate; they decide nothing about the invariants.
 */
export interface GateDriver {
  readonly adapter: GateAdapter;
  readonly uris: ResourceUris;
  /** The caller as this driver's transport can carry it (v2 stdio has no auth, for one). */
  servable(caller: Caller): Caller;
  /** A cold gate; throws a TypeError naming a gate option under which the invariants cannot hold. */
  createGate(createServer: () => AnyMcpServer | Promise<AnyMcpServer>, gateOptions: Record<string, unknown>, settings: DriverSettings): DrivenGate;
}
