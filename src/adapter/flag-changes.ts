import { wholeContextOf, type FlagValue, type RequestContext } from '../core/context.js';
import type { FlagResolver } from './flag-resolution.js';
import type { GatedSession, GateRuntime } from './gate-runtime.js';
import { listsThatDiffer, type ListKind } from './list-changes.js';
import type { PolicyView } from './policy-view.js';

// A flag a policy reads can change in the provider between two requests of a session: its list
// is then stale until it asks again, and nothing tells it to. The gate follows the provider's
// ConfigurationChanged event: for each open session whose policy reads a flag that changed, it
// resolves the session's flags again (with the evaluation context of its latest request),
// keeps them for the session, and sends list_changed for exactly the lists whose visible set
// changed, through the session's `notify` as a policy swap does. Events that arrive while a
// pass runs are merged into the next one, so a burst costs each session one resolution per pass.

/** OpenFeature's `ServerProviderEvents.ConfigurationChanged` (the SDK is an optional dependency, so not imported). */
export const configurationChangedEvent = 'PROVIDER_CONFIGURATION_CHANGED';

/** The part of OpenFeature's EventDetails the gate reads: the flags that changed, when the provider says. */
export interface FlagChangeDetails {
  readonly flagsChanged?: readonly string[] | undefined;
}

type FlagChangeHandler = (details?: FlagChangeDetails) => void;

/** The eventing part of an OpenFeature `Client`; a flag client without it is not followed. */
interface FlagChangeSource {
  addHandler(eventType: string, handler: FlagChangeHandler): void;
  removeHandler(eventType: string, handler: FlagChangeHandler): void;
}

/** A gate's subscription to its flag provider's changes. */
export interface FlagChangeFollowing {
  /** Removes the gate's handler from the flag client; later changes notify nobody. Idempotent. */
  close(): void;
}

const notFollowing: FlagChangeFollowing = { close() {} };

// A gate nobody closes must not stay reachable from the OpenFeature API (a process-wide
// singleton) for ever: the handler holds its gate weakly, and is removed once the gate is gone.
const removeWhenCollected = new FinalizationRegistry<() => void>((remove) => remove());

/**
 * Subscribes `runtime`'s gate to its flag client's ConfigurationChanged events (nothing to do
 * without the `flags` option or when the client has no `addHandler`/`removeHandler`).
 */
export function followFlagChanges(runtime: GateRuntime): FlagChangeFollowing {
  const client = runtime.settings.flags?.client as Partial<FlagChangeSource> | undefined;
  if (typeof client?.addHandler !== 'function' || typeof client.removeHandler !== 'function') return notFollowing;
  const source = client as FlagChangeSource;
  const gate = new WeakRef(runtime);
  // Flags changed since the last pass began: their keys, or 'all' when an event named none.
  let pending: Set<string> | 'all' | undefined;
  let passes: Promise<void> | undefined;
  let closed = false;

  async function runPasses(): Promise<void> {
    try {
      await undefined; // events emitted in one synchronous burst join the first pass
      while (pending !== undefined && !closed) {
        const changed = pending;
        pending = undefined;
        const current = gate.deref();
        if (current === undefined) return;
        try {
          await followChange(current, changed);
        } catch (error) {
          current.settings.reportError(asError(error));
        }
      }
    } finally {
      passes = undefined;
    }
  }

  const onConfigurationChanged: FlagChangeHandler = function onConfigurationChanged(details) {
    try {
      if (closed) return;
      const keys = Array.isArray(details?.flagsChanged) ? details.flagsChanged.filter((key): key is string => typeof key === 'string') : [];
      pending = pending === 'all' || keys.length === 0 ? 'all' : new Set([...(pending ?? []), ...keys]);
      passes ??= runPasses();
    } catch (error) {
      // Never into the provider's emitter.
      gate.deref()?.settings.reportError(asError(error));
    }
  };
  const remove = () => source.removeHandler(configurationChangedEvent, onConfigurationChanged);
  source.addHandler(configurationChangedEvent, onConfigurationChanged);
  removeWhenCollected.register(runtime, remove, onConfigurationChanged);
  return {
    close() {
      if (closed) return;
      closed = true;
      pending = undefined;
      removeWhenCollected.unregister(onConfigurationChanged);
      remove();
    },
  };
}

/**
 * Sessions whose flags a pass resolves at the same time. A remote provider (flagd over gRPC, a
 * flag service over HTTP) would otherwise get one evaluation per open session in the same
 * instant — a thousand sessions, a thousand requests — on every change.
 */
export const flagResolutionsAtOnce = 16;

/** One pass: every open session whose policy reads a changed flag, `flagResolutionsAtOnce` at a time. */
async function followChange(runtime: GateRuntime, changed: ReadonlySet<string> | 'all'): Promise<void> {
  const view = runtime.currentView();
  const declared = view.policy.flags;
  const resolver = runtime.settings.flags;
  if (resolver === undefined || declared === undefined) return;
  const read = Object.keys(declared);
  if (read.length === 0 || (changed !== 'all' && !read.some((key) => changed.has(key)))) return;
  const sessions = [...runtime.sessions.open()];
  let next = 0;
  const worker = async () => {
    while (next < sessions.length) {
      const [session, kept] = sessions[next++]!;
      // One session that fails must not stop the sessions after it in this worker.
      await followSession(runtime, resolver, declared, session, kept).catch((error: unknown) => runtime.settings.reportError(asError(error)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(flagResolutionsAtOnce, sessions.length) }, worker));
}

const everyList: readonly ListKind[] = ['tools', 'prompts', 'resources'];

async function followSession(
  runtime: GateRuntime,
  resolver: FlagResolver,
  declared: Readonly<Record<string, FlagValue>>,
  session: GatedSession,
  kept: RequestContext,
): Promise<void> {
  // The kept context is the one its requests resolved with: the same evaluation context. Never rejects.
  const resolved = await resolver.resolve(kept, declared);
  runtime.sessions.refresh(session, resolved, kept);
  // Compared under the policy in force now: a swap while the flags resolved decided its own
  // list_changed on the flags kept then, so what is left to announce is the flags' change under
  // the new policy. (Bailing out instead lost the notification when serve's --policy-flag watch
  // re-applied the policy on the same ConfigurationChanged.)
  const view = runtime.currentView();
  for (const list of changedForSession(session, view, kept, resolved)) {
    try {
      await session.notify(list);
    } catch (error) {
      runtime.settings.reportError(asError(error));
    }
  }
}

/**
 * The lists whose visible set differs between the session's flag values before and after.
 * Both decide on the whole context (the kept one was planned for the policy of its request);
 * one that can no longer be built gets every list, as with a policy swap.
 */
function changedForSession(session: GatedSession, view: PolicyView, kept: RequestContext, resolved: RequestContext): readonly ListKind[] {
  try {
    return listsThatDiffer(session.catalog(), { view, context: wholeContextOf(kept) }, { view, context: wholeContextOf(resolved) });
  } catch {
    return everyList;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
