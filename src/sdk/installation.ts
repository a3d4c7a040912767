import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContextPlan, RequestContext } from '../core/context.js';
import type { GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { GateInstallation, type GatedHandlerTable } from '../adapter/installation.js';
import { gatedLists } from './gated-lists.js';
import { gatedReads } from './gated-reads.js';
import { createGatedToolCall } from './gated-tool-call.js';
import { createContextBuilder } from './request-context.js';
import { readInternals, readSources, type McpServerInternals, type SdkExtra } from './server-internals.js';

/** The gate on one McpServer 1.32: the shared installation, with this SDK's requests, registries and answers. */
export class Installation extends GateInstallation<McpServer, SdkExtra, SdkExtra> {
  readonly internals: McpServerInternals;
  readonly #contextFor: ReturnType<typeof createContextBuilder>;

  constructor(server: McpServer, runtime: GateRuntime) {
    const internals = readInternals(server);
    // SDK 1.32's registerPrompt drops `config._meta`; the gate keeps it, keyed by the registration.
    const capturedPromptMeta = new WeakMap<object, unknown>();
    super(
      server,
      runtime,
      () => readSources(internals, capturedPromptMeta),
      (kind, _key, meta, registered) => {
        if (kind !== 'prompt' || meta === undefined || registered === null || typeof registered !== 'object') return;
        capturedPromptMeta.set(registered, meta);
        this.invalidateCatalog();
      },
    );
    this.internals = internals;
    this.#contextFor = createContextBuilder(server.server);
    this.gateHandlers(gatedHandlers);
  }

  /** Every request of an McpServer belongs to its session (stdio, in-memory or one HTTP session), which setPolicy tells about changes. */
  begin(method: string, extra: SdkExtra): GatedRequest {
    return this.resolvedWithFlags(extra) ?? this.startRequest(method, extra, extra.requestId, true);
  }

  protected contextOf(method: string, extra: SdkExtra, plan: ContextPlan): RequestContext {
    return this.#contextFor(method, extra, plan);
  }
}

const gatedHandlers: GatedHandlerTable<Installation, SdkExtra> = { ...gatedLists, ...gatedReads, 'tools/call': createGatedToolCall };
