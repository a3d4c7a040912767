import type { Policy } from '../core/policy/types.js';
import type { Catalog } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import { wholeContextOf, type RequestContext } from '../core/context.js';
import { changedLists, SessionContexts, type ListKind } from './list-changes.js';
import { resolvePolicy } from './policy-input.js';
import { createPolicyView, type PolicyView } from './policy-view.js';
import { assertFlagsResolvable } from './flag-resolution.js';
import { followFlagChanges } from './flag-changes.js';

/** What the gate needs from one installation to keep its session's lists current. */
export interface GatedSession {
  catalog(): Catalog;
  isOpen(): boolean;
  /** Tells the session's client that a list changed (because the policy did, not the registry). */
  notify(list: ListKind): Promise<void>;
  /**
   * The whole context of the session's latest request, whose `kept` context holds only what the
   * policy of that request read (context-plan.ts). Without this method it is rebuilt from the
   * input `kept` was built from (wholeContextOf), which the binding then keeps whole.
   */
  wholeContext?(kept: RequestContext): RequestContext;
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
  /** Stops following the flag provider's changes (flag-changes.ts); the gate goes on deciding. */
  close(): void;
}

export function createPolicyHolder<Settings extends GateSettings>(policy: unknown, settings: Settings): PolicyHolder<Settings> {
  const { onMissingCapabilities } = settings;
  const compile = (input: unknown): PolicyView => {
    const policy = resolvePolicy(input, 'policy', { onMissingCapabilities });
    assertFlagsResolvable(policy, settings.flags);
    return createPolicyView(policy, onMissingCapabilities);
  };
  let view = compile(policy);
  const sessions = new SessionContexts<GatedSession>((session) => session.isOpen());
  const runtime: GateRuntime<Settings> = { currentView: () => view, settings, sessions };
  // Flag changes hook: a flag that changes in the provider sends list_changed to the sessions whose view changed.
  const flagChanges = followFlagChanges(runtime);
  return {
    runtime,
    get policy() {
      return view.policy;
    },
    close: () => flagChanges.close(),
    async setPolicy(next) {
      const before = view;
      const after = compile(next);
      view = after;
      const notifications: Promise<void>[] = [];
      for (const [session, context] of sessions.open()) {
        for (const list of listsToNotify(session, before, after, context)) notifications.push(session.notify(list));
      }
      await Promise.all(notifications);
    },
  };
}

const everyList: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/**
 * The lists a session must be told about. The context it keeps was built for the policy of its
 * last request (context-plan.ts), which may read less than either policy here: both decide on
 * the whole context. One that can no longer be built gets every list (a needless list_changed
 * costs a re-list; a missing one leaves a stale view).
 */
function listsToNotify(session: GatedSession, before: PolicyView, after: PolicyView, kept: RequestContext): readonly ListKind[] {
  let context: RequestContext;
  try {
    context = session.wholeContext ? session.wholeContext(kept) : wholeContextOf(kept);
  } catch {
    return everyList;
  }
  return changedLists(session.catalog(), before, after, context);
}
