import type { GateSettings } from '../adapter/gate-options.js';

/**
 * How a call to a primitive hidden only by an unmet capability requirement answers: `'hide'`
 * (default) as for an unknown name; `'error'` with MCP's -32021 and `data.requiredCapabilities`,
 * which tells the client what to declare but reveals that the primitive exists.
 */
export type MissingCapabilityMode = 'hide' | 'error';

/** The shared settings plus the v2-only answer to a missing capability. */
export interface ServerGateSettings extends GateSettings {
  readonly missingCapability: MissingCapabilityMode;
}
