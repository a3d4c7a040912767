import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type ClientCapabilities, type Implementation, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ListKind } from '../adapter/list-changes.js';
import { withTimeout } from '../serve/lifetime.js';
import { RelayedError } from '../wire/relayed-error.js';
import type { WireConnection } from '../wire/wire-connection.js';
import type { WireGate } from '../wire/wire-gate.js';
import type { EraBridge } from './bridge-upstream.js';
import type { UpstreamSupervisor } from './supervisor.js';

/** What an upstream session is opened from: the headers of the downstream session's initialize (none over stdio). */
export interface DownstreamInitialize {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** How the client initialized its downstream session: every upstream session of it is initialized the same way. */
export interface InitializedDownstream {
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly downstream: DownstreamInitialize;
}

/** What the downstream session's `initialize` is answered with: the upstream's own capabilities, server info and instructions. */
export interface UpstreamIdentity {
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation;
  readonly instructions: string | undefined;
}

/** One upstream session of a downstream session: replaced by a new one when it ends. */
export interface UpstreamLink {
  readonly client: Client;
  connection: WireConnection;
  identity: UpstreamIdentity;
  readonly startedAt: number;
  /** Set once the upstream session ended (its process exited, its connection closed, or it stopped answering). */
  lost: boolean;
  /** The ping under way after a transport error. */
  check: Promise<boolean> | undefined;
}

export interface SupervisedUpstreamSettings {
  readonly wire: WireGate;
  readonly openUpstream: (downstream: DownstreamInitialize) => Transport;
  readonly onError: (error: unknown) => void;
  readonly supervisor: UpstreamSupervisor;
  readonly connectTimeoutMs: number;
  readonly probeTimeoutMs: number;
  /** Set in front of an upstream that speaks only 2026-07-28: each upstream session is a Client of stateless requests (bridge-upstream.ts). */
  readonly bridge?: EraBridge | undefined;
}

/** What the downstream session lends each of its upstream sessions. */
export interface DownstreamSide {
  isClosed(): boolean;
  /** Routes a new upstream session's requests and notifications to the downstream client. */
  relay(link: UpstreamLink): void;
  notifyListChanged(list: ListKind): Promise<void>;
  /** Whether the session holds state only an upstream session keeps (subscriptions, a log level). */
  holdsState(): boolean;
  /** Gives a new upstream session that state, and tells the client about lists that changed since `before`. */
  restore(link: UpstreamLink, before: UpstreamLink | undefined): Promise<void>;
}

/** The server info a session is initialized with when the upstream gave none. */
export const proxyServerInfo: Implementation = { name: 'mcp-gate-proxy', version: '0.1.0' };

/** What a client is told when no upstream session can be opened (the detail goes to the operator through onError). */
export const upstreamUnavailable = () => new RelayedError(ErrorCode.InternalError, 'The upstream server is not available');
/** What a request waiting on an upstream session that ended is answered. */
export const upstreamWentAway = () =>
  new RelayedError(
    ErrorCode.InternalError,
    'The upstream server went away before answering this request (it may have acted on it); the next request opens a new upstream session',
  );

/** Tries of reconnectInBackground before it leaves the reconnection to the session's next request. */
const maxBackgroundAttempts = 360;

/**
 * The upstream session of one downstream session, supervised: opened when the client's
 * initialize arrives, checked with a ping after a transport error, and, once it ended, replaced
 * by a new one — after the supervisor's back-off — when the session's next request asks for it
 * (or at once in the background, for a session whose state an upstream session holds).
 */
export class SupervisedUpstream {
  /** Set while initialize is under way and once it succeeded. */
  initialized: InitializedDownstream | undefined;
  /** Set once initialize succeeded, and stays set (ended or not) from then on. */
  link: UpstreamLink | undefined;
  #reopening: Promise<UpstreamLink> | undefined;
  /** Set while a new upstream session is sought without a request asking for one. */
  #reconnecting = false;
  readonly #settings: SupervisedUpstreamSettings;
  readonly #downstream: DownstreamSide;

  constructor(settings: SupervisedUpstreamSettings, downstream: DownstreamSide) {
    this.#settings = settings;
    this.#downstream = downstream;
  }

  /** Opens the first upstream session, as the client initialized the downstream one. */
  async initialize(initialized: InitializedDownstream): Promise<UpstreamLink> {
    this.initialized = initialized;
    let link: UpstreamLink;
    try {
      link = await this.#open(initialized);
    } catch (error) {
      // The client may initialize again.
      this.initialized = undefined;
      throw error;
    }
    this.link = link;
    return link;
  }

  close(): void {
    void this.link?.client.close().catch(this.#settings.onError);
  }

  /** Whether the upstream session still answers, asked after a transport error; one that does not is closed. */
  isAlive(link: UpstreamLink): Promise<boolean> {
    if (link.lost) return Promise.resolve(false);
    const { bridge, probeTimeoutMs } = this.#settings;
    link.check ??= (bridge === undefined ? link.client.ping({ timeout: probeTimeoutMs }) : bridge.check(link.client, probeTimeoutMs))
      .then(
        () => true,
        async () => {
          await link.client.close().catch(() => undefined);
          return false;
        },
      )
      .finally(() => (link.check = undefined));
    return link.check;
  }

  /** The open upstream session, or a new one in place of the one that ended (one at a time, whoever asks). */
  current(): Promise<UpstreamLink> {
    if (this.link !== undefined && !this.link.lost) return Promise.resolve(this.link);
    this.#reopening ??= this.#reopen().finally(() => (this.#reopening = undefined));
    return this.#reopening;
  }

  /** A new upstream session, once the back-off allows, initialized as the client initialized this session. */
  async #open(initialized: InitializedDownstream): Promise<UpstreamLink> {
    const { supervisor, onError, connectTimeoutMs, bridge } = this.#settings;
    await supervisor.beforeStart();
    if (this.#downstream.isClosed()) throw upstreamUnavailable();
    const client = new Client(initialized.clientInfo, { capabilities: initialized.capabilities });
    const link: UpstreamLink = { client, connection: undefined as never, identity: undefined as never, startedAt: Date.now(), lost: false, check: undefined };
    this.#downstream.relay(link);
    client.onerror = (error) => {
      onError(error);
      // A transport error (an HTTP stream cut, a refused connection) may mean the upstream is gone.
      if (link.connection !== undefined) void this.isAlive(link);
    };
    client.onclose = () => {
      if (link.lost) return;
      link.lost = true;
      if (this.#downstream.isClosed()) return;
      const waitMs = supervisor.failed(Date.now() - link.startedAt);
      const holdsState = this.#downstream.holdsState();
      onError(
        new Error(
          `the upstream session ended after ${Date.now() - link.startedAt} ms; ${holdsState ? 'a new one is sought now' : "the downstream session's next request opens a new one"}${waitMs > 0 ? ` (in ${waitMs} ms at the earliest)` : ''}`,
        ),
      );
      if (holdsState) this.#reconnectInBackground();
    };
    try {
      // A bridged session's Client connects without a handshake; the upstream is asked server/discover instead.
      const transport = bridge === undefined ? this.#settings.openUpstream(initialized.downstream) : bridge.transport(initialized, () => link.connection);
      await withTimeout(client.connect(transport, { timeout: connectTimeoutMs }), connectTimeoutMs, 'the upstream did not answer initialize');
      link.identity =
        bridge === undefined
          ? { capabilities: client.getServerCapabilities() ?? {}, serverInfo: client.getServerVersion() ?? proxyServerInfo, instructions: client.getInstructions() }
          : await withTimeout(bridge.identify(client, connectTimeoutMs), connectTimeoutMs, 'the upstream did not answer server/discover');
      link.connection = await withTimeout(
        this.#settings.wire.attach(client, {
          notify: (list) => this.#downstream.notifyListChanged(list),
          isOpen: () => !this.#downstream.isClosed() && this.link === link,
        }),
        connectTimeoutMs,
        'the upstream did not answer its lists',
      );
    } catch (error) {
      // The detail (a command that did not start, a refused connection) is the operator's, not the client's.
      onError(error);
      link.lost = true;
      supervisor.failed(undefined);
      await client.close().catch(() => undefined);
      throw upstreamUnavailable();
    }
    if (this.#downstream.isClosed()) {
      link.lost = true;
      await client.close().catch(() => undefined);
      throw upstreamUnavailable();
    }
    return link;
  }

  /**
   * A session that subscribed to resources or set a log level would hear nothing from a new
   * upstream session until its next request opened one: it gets one now, through the
   * supervisor's back-off (each failed try makes the next wait longer, up to 10 s), replaying its
   * subscriptions. Sessions without such state wait for their next request, so an upstream that
   * comes back is not met by every idle session at once.
   */
  #reconnectInBackground(): void {
    if (this.#reconnecting) return;
    this.#reconnecting = true;
    void (async () => {
      // Bounded: about an hour of tries at the longest back-off; the next request tries again after that.
      for (let attempt = 0; attempt < maxBackgroundAttempts && !this.#downstream.isClosed() && (this.link === undefined || this.link.lost); attempt++) {
        await this.current().catch(() => undefined);
      }
    })().finally(() => (this.#reconnecting = false));
  }

  async #reopen(): Promise<UpstreamLink> {
    if (this.initialized === undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server not initialized');
    const before = this.link;
    const link = await this.#open(this.initialized);
    this.link = link;
    await this.#downstream.restore(link, before);
    return link;
  }
}
