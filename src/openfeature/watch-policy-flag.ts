import { ProviderEvents, type Client, type EventHandler } from '@openfeature/server-sdk';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import { PolicyFlagError } from './policy-flag-error.js';
import { readPolicyFlag, type ReadPolicyFlagOptions } from './read-policy-flag.js';

/** What a policy flag is applied to: the handle `gate()`/`createGate()` return (mcp-gate/sdk or mcp-gate/server). */
export interface PolicyTarget {
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
}

/** Options of watchPolicyFlag. Without `onError`, a rejected document is logged with console.error. */
export interface WatchPolicyFlagOptions extends ReadPolicyFlagOptions {
  /** Called when the flag could not be applied; the old policy stays in force. */
  onError?: (error: PolicyFlagError) => void;
  /** Called after a new policy from the flag has been swapped in. */
  onPolicy?: (policy: Policy) => void;
}

/** A running watch: `ready` settles after the first read (never rejects); `close()` stops listening. */
export interface PolicyFlagWatch {
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps `target`'s policy in step with the object flag `flagKey`: reads it now, on provider Ready
 * and on every ConfigurationChanged, and swaps in each valid document. An error, a missing flag or
 * an invalid document keeps the policy in force and is reported to `onError`.
 */
export function watchPolicyFlag(client: Client, flagKey: string, target: PolicyTarget, options: WatchPolicyFlagOptions = {}): PolicyFlagWatch {
  const report = options.onError ?? ((error: PolicyFlagError) => console.error(error.message));
  let closed = false;
  // Reads run one after another, so an older read never lands after a newer one.
  let queue: Promise<void> = Promise.resolve();

  const reload = (): Promise<void> => {
    queue = queue.then(async function reloadPolicyFlag() {
      if (closed) return;
      let policy: Policy;
      try {
        policy = await readPolicyFlag(client, flagKey, options);
      } catch (error) {
        if (!closed) report(toPolicyFlagError(flagKey, error));
        return;
      }
      if (closed) return;
      try {
        await target.setPolicy(policy);
      } catch (error) {
        report(toPolicyFlagError(flagKey, error));
        return;
      }
      options.onPolicy?.(policy);
    });
    // A throwing callback must not end the watch: a rejected queue would skip every later read.
    queue = queue.catch((error: unknown) => console.error('mcp-gate/openfeature: a watchPolicyFlag callback threw:', error));
    return queue;
  };

  const onProviderChange: EventHandler = () => void reload();
  // The SDK runs a Ready handler at once when the provider is already ready; the read below covers
  // that, so skip the synchronous call rather than read (and report) twice.
  let registering = true;
  const onProviderReady: EventHandler = () => void (registering || reload());
  client.addHandler(ProviderEvents.ConfigurationChanged, onProviderChange);
  client.addHandler(ProviderEvents.Ready, onProviderReady);
  registering = false;
  const ready = reload();

  return {
    ready,
    async close() {
      closed = true;
      client.removeHandler(ProviderEvents.ConfigurationChanged, onProviderChange);
      client.removeHandler(ProviderEvents.Ready, onProviderReady);
      await queue;
    },
  };
}

function toPolicyFlagError(flagKey: string, error: unknown): PolicyFlagError {
  if (error instanceof PolicyFlagError) return error;
  // A provider or the target threw instead of answering: reported like an evaluation error.
  const message = error instanceof Error ? error.message : String(error);
  return new PolicyFlagError(flagKey, 'flag_error', [{ code: 'invalid_document', path: '', message: `applying the flag failed: ${message}` }], { cause: error });
}
