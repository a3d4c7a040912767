import type { PrimitiveAnnotation } from '../core/context.js';
import type { SessionContexts } from '../adapter/list-changes.js';
import type { Paginator } from '../adapter/pagination.js';
import type { PolicyView } from '../adapter/policy-view.js';

/** How a denied call, get, read or completion surfaces. */
export type DeniedMode = 'hide' | 'explain';

/**
 * How a call to a primitive hidden only by an unmet capability requirement answers: `'hide'`
 * (default) as for an unknown name; `'error'` with MCP's -32021 and `data.requiredCapabilities`,
 * which tells the client what to declare but reveals that the primitive exists.
 */
export type MissingCapabilityMode = 'hide' | 'error';

/** Options after validation, shared by every server a gate is installed on. */
export interface GateSettings {
  readonly annotations: ReadonlyMap<string, PrimitiveAnnotation>;
  readonly denied: DeniedMode;
  readonly missingCapability: MissingCapabilityMode;
  readonly exposeRequirements: boolean;
  readonly paginator: Paginator;
  readonly versionSeparator: string;
  readonly reportError: (error: Error) => void;
}

/** What an installation needs from its gate: the policy in force now, settings, session tracking. */
export interface GateRuntime {
  currentView(): PolicyView;
  readonly settings: GateSettings;
  readonly sessions: SessionContexts<object>;
}
