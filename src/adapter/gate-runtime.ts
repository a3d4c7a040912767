import type { Policy } from '../core/policy/types.js';
import type { Catalog } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import { changedLists, SessionContexts, type ListKind } from './list-changes.js';
import { resolvePolicy } from './policy-input.js';
import { createPolicyView, type PolicyView } from './policy-view.js';

/** What the gate needs from one installation to keep its session's lists current. */
export interface GatedSession {
  catalog(): Catalog;
  isOpen(): boolean;
  /** Tells the session's client that a list changed (because the policy did, not the registry). */
  notify(list: ListKind): Promise<void>;
}

/** What an installation needs from its gate: the policy in force now, the settings, session tracking. */
export interface GateRuntime<Settings extends GateSettings = GateSettings> {
  currentView(): PolicyView;
  readonly settings: Settings;
  readonly sessions: SessionContexts<GatedSession>;
}

/** A gate's policy and sessions, below both SDK adapters. */
export interface PolicyHolder<Settings extends GateSettings> {
  readonly runtime: GateRuntime<Settings>;
  readonly policy: Policy;
  /**
   * Swaps the policy atomically: requests already running finish under the old view. Resolves
   * once `list_changed` went to every open session whose visible set changed (only those).
   */
  setPolicy(next: unknown): Promise<void>;
}

export function createPolicyHolder<Settings extends GateSettings>(policy: unknown, settings: Settings): PolicyHolder<Settings> {
  const { onMissingCapabilities } = settings;
  const compile = (input: unknown): PolicyView => createPolicyView(resolvePolicy(input, 'policy', { onMissingCapabilities }), onMissingCapabilities);
  let view = compile(policy);
  const sessions = new SessionContexts<GatedSession>((session) => session.isOpen());
  return {
    runtime: { currentView: () => view, settings, sessions },
    get policy() {
      return view.policy;
    },
    async setPolicy(next) {
      const before = view;
      const after = compile(next);
      view = after;
      const notifications: Promise<void>[] = [];
      for (const [session, context] of sessions.open()) {
        for (const list of changedLists(session.catalog(), before, after, context)) notifications.push(session.notify(list));
      }
      await Promise.all(notifications);
    },
  };
}
