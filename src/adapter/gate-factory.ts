import { PolicyOptionError } from '../core/errors.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import type { GateSettings, SharedGateOptions } from './gate-options.js';
import { createPolicyHolder, type GateRuntime } from './gate-runtime.js';

/** What every binding's gate is: the policy in force, an atomic swap, and installation on one more server. */
export interface BindingGate<Server, InstallOptions> {
  readonly policy: Policy;
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  install(server: Server, options?: InstallOptions): void;
  /** Stops following the flag provider's changes (flag-changes.ts); the gate goes on deciding. Optional: a Gate of your own needs none. */
  close?(): void;
}

/** What a binding adds to the shared gate: how it reads its options, and how it puts itself on one server. */
export interface Binding<Server extends object, Options extends SharedGateOptions, InstallOptions, Settings extends GateSettings> {
  readSettings(options: Options): Settings;
  /** Gates `server` under `runtime`'s policy; called once per server (a second install is refused before this). */
  install(server: Server, runtime: GateRuntime<Settings>, options: InstallOptions | undefined): void;
}

/**
 * The `createGate` of a binding: options read once, one policy holder, and `install` refusing a
 * server this binding gated already (any gate of it: two gates on one server would each hide
 * what the other lets through).
 */
export function createGateFactory<Server extends object, Options extends SharedGateOptions, InstallOptions, Settings extends GateSettings>(
  binding: Binding<Server, Options, InstallOptions, Settings>,
): (options: Options) => BindingGate<Server, InstallOptions> {
  const gatedServers = new WeakSet<Server>();
  return function createGate(options) {
    const settings = binding.readSettings(options);
    const holder = createPolicyHolder(options.policy, settings);
    return {
      get policy() {
        return holder.policy;
      },
      setPolicy: (next) => holder.setPolicy(next),
      close: () => holder.close(), // flag changes hook
      install(server, installOptions) {
        if (gatedServers.has(server)) throw new PolicyOptionError('mcp-gate: this McpServer is already gated');
        binding.install(server, holder.runtime, installOptions);
        gatedServers.add(server);
      },
    };
  };
}

/** Whether `gate(server, value)` was handed a gate made before, rather than options. */
export function isGate<Gate extends BindingGate<never, never>>(value: object | Gate): value is Gate {
  return typeof (value as Gate).install === 'function' && typeof (value as Gate).setPolicy === 'function';
}
