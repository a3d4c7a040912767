import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { WireConnection, WireSessionHooks } from '../wire/wire-connection.js';
import type { WireGate } from '../wire/wire-gate.js';
import type { EnvelopeMeta } from './stateless-upstream.js';

/** Distinct envelopes whose upstream lists are kept at once (least recently used goes first). */
export const defaultMaxStatelessEnvelopes = 256;
/**
 * How long an envelope's lists are used before they are fetched again. A stateless upstream tells
 * of a change only on a `subscriptions/listen` stream: the lists of an envelope someone listens
 * with are fetched again at once (`refresh`); the others wait for this.
 */
export const defaultStatelessListTtlMs = 60_000;

export interface StatelessConnectionsOptions {
  readonly wire: WireGate;
  /** A Client for one envelope and one set of upstream headers (connectStatelessUpstream). */
  readonly connect: (headers: Readonly<Record<string, string>>, envelope: EnvelopeMeta) => Promise<Client>;
  readonly onError: (error: unknown) => void;
  readonly maxEntries?: number;
  readonly listTtlMs?: number;
}

interface Entry {
  readonly connection: Promise<WireConnection>;
  fetchedAt: number;
  cached: boolean;
  /** Requests using the connection now: an entry evicted meanwhile is closed when the last one ends, not under it. */
  inUse: number;
}

/**
 * The wire binding's connections for 2026-07-28 stateless requests, one per distinct envelope
 * (protocol version, client info, capabilities) and set of upstream headers: what the upstream
 * sees of a request, so what its lists may depend on. Each fetches the upstream's lists with that
 * envelope; connections whose upstream listed the same share one snapshot (the wire gate's
 * SharedSnapshots key them by content), so a thousand clients of one kind cost one set of lists.
 * Bounded: beyond `maxEntries` the least recently used is closed.
 */
export class StatelessConnections {
  readonly #options: StatelessConnectionsOptions;
  readonly #maxEntries: number;
  readonly #listTtlMs: number;
  /** By key; a Map iterates in insertion order, and a hit re-inserts, so the first is the least recently used. */
  readonly #entries = new Map<string, Entry>();

  constructor(options: StatelessConnectionsOptions) {
    this.#options = options;
    this.#maxEntries = options.maxEntries ?? defaultMaxStatelessEnvelopes;
    this.#listTtlMs = options.listTtlMs ?? defaultStatelessListTtlMs;
    if (!Number.isSafeInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new RangeError(`StatelessConnections: maxEntries must be a positive integer, got ${this.#maxEntries}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Runs `task` with the gated connection for this envelope and these upstream headers, its lists
   * fetched (again, once they are older than the TTL). The connection stays open until `task` ends.
   */
  async use<T>(envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>, task: (connection: WireConnection) => Promise<T>): Promise<T> {
    const entry = this.#entryFor(envelope, headers);
    entry.inUse++;
    try {
      const connection = await entry.connection;
      if (Date.now() - entry.fetchedAt > this.#listTtlMs) {
        entry.fetchedAt = Date.now();
        // A failed refresh keeps the lists as they were (WireConnection.refresh); the operator hears of it.
        await connection.refresh().catch(this.#options.onError);
      }
      return await task(connection);
    } finally {
      entry.inUse--;
      if (!entry.cached && entry.inUse === 0) void closeEntry(entry);
    }
  }

  /**
   * Fetches the lists of this envelope and these headers again now, if they are kept: the
   * upstream said one changed (on a `subscriptions/listen` stream), so they are not used stale
   * until the TTL runs out. A failed refresh keeps them as they were (the operator hears of it).
   */
  async refresh(envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>): Promise<void> {
    const entry = this.#entries.get(keyOf(envelope, headers));
    if (entry === undefined) return;
    const connection = await entry.connection.catch(() => undefined);
    if (connection === undefined) return;
    entry.fetchedAt = Date.now();
    await connection.refresh().catch(this.#options.onError);
  }

  /**
   * A gated connection of its own for one `subscriptions/listen` stream, not kept here: its
   * lists, fetched with the listener's envelope and headers, and the context of its one request
   * are what decide which changes reach the listener (the wire gate tells `hooks` of a list
   * whose visible part changed, on a refresh or a new policy). The caller closes its client.
   */
  async openListener(envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>, hooks: WireSessionHooks): Promise<WireConnection> {
    const client = await this.#options.connect(headers, envelope);
    try {
      return await this.#options.wire.attach(client, hooks);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  #entryFor(envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>): Entry {
    const key = keyOf(envelope, headers);
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    } else {
      entry = this.#open(key, envelope, headers);
    }
    return entry;
  }

  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) entry.cached = false;
    await Promise.all(entries.map((entry) => closeEntry(entry)));
  }

  #open(key: string, envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>): Entry {
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(oldest);
      entry.cached = false;
      if (entry.inUse === 0) void closeEntry(entry);
    }
    const entry: Entry = {
      fetchedAt: Date.now(),
      cached: true,
      inUse: 0,
      connection: this.#options.connect(headers, envelope).then(async (client) => {
        try {
          // No session to tell of a changed list: a 2026-07-28 client asks again, or listens (openListener).
          return await this.#options.wire.attach(client, { notify: async () => undefined, isOpen: () => entry.cached });
        } catch (error) {
          await client.close().catch(() => undefined);
          throw error;
        }
      }),
    };
    // An envelope whose lists could not be fetched is not kept: the next request tries again.
    entry.connection.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    this.#entries.set(key, entry);
    return entry;
  }
}

function keyOf(envelope: EnvelopeMeta, headers: Readonly<Record<string, string>>): string {
  return JSON.stringify([envelope, Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}

async function closeEntry(entry: Entry): Promise<void> {
  const connection = await entry.connection.catch(() => undefined);
  await connection?.client.close().catch(() => undefined);
}
