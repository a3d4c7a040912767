// Apart from the SDK: pure timing, so that its rules are tested without spawning anything.

export interface UpstreamSupervisorOptions {
  /** The wait before the start that follows one failure (default 250 ms); each further failure doubles it. */
  readonly initialDelayMs?: number;
  /** The longest wait before a start (default 10 s): a client waits at most this long for a restart. */
  readonly maxDelayMs?: number;
  /** An upstream that ran at least this long before it failed starts the count again (default 30 s). */
  readonly stableAfterMs?: number;
  readonly now?: () => number;
}

/**
 * The restart back-off of one proxy, shared by all its sessions: every upstream session (a
 * process, or an HTTP session) that fails to start, or stops soon after it started, makes the
 * next start anywhere in the proxy wait longer — 250 ms, 500 ms, 1 s, … up to 10 s — so that a
 * command that crashes at once is not spawned in a tight loop, however many clients ask. Failures
 * that arrive while a wait is already in force (every session of a dead upstream at once) count
 * once.
 */
export class UpstreamSupervisor {
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #stableAfterMs: number;
  readonly #now: () => number;
  #failures = 0;
  #notBefore = 0;

  constructor(options: UpstreamSupervisorOptions = {}) {
    this.#initialDelayMs = options.initialDelayMs ?? 250;
    this.#maxDelayMs = options.maxDelayMs ?? 10_000;
    this.#stableAfterMs = options.stableAfterMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  /** How long a start asked for now waits. */
  get waitMs(): number {
    return Math.max(0, this.#notBefore - this.#now());
  }

  /** Consecutive short-lived failures counted so far (0 once an upstream ran long enough). */
  get failures(): number {
    return this.#failures;
  }

  /** Resolves when a start may begin: at once, or when the back-off in force ends. */
  async beforeStart(): Promise<void> {
    const wait = this.waitMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /**
   * An upstream session failed: it did not start (`ranMs` undefined) or stopped after `ranMs`.
   * Returns the wait now in force before the next start.
   */
  failed(ranMs: number | undefined): number {
    const now = this.#now();
    if (ranMs !== undefined && ranMs >= this.#stableAfterMs) this.#failures = 0;
    if (now >= this.#notBefore) {
      this.#failures++;
      this.#notBefore = now + Math.min(this.#maxDelayMs, this.#initialDelayMs * 2 ** (this.#failures - 1));
    }
    return this.waitMs;
  }
}
