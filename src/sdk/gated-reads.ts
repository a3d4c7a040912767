import { CompleteRequestSchema, GetPromptRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createReadGates, type HiddenRead } from '../adapter/gated-reads.js';
import { deniedError, promptNotFound, resourceNotFound, resourceTemplateNotFound } from './denials.js';
import type { Installation } from './installation.js';
import type { SdkExtra } from './server-internals.js';

const requestSchemas = { 'prompts/get': GetPromptRequestSchema, 'resources/read': ReadResourceRequestSchema, 'completion/complete': CompleteRequestSchema };

const notFound = { Prompt: promptNotFound, Resource: resourceNotFound, 'Resource template': resourceTemplateNotFound };

/**
 * The gated get, read and completion methods of this binding's handler table (adapter/gated-reads.ts).
 * SDK 1.32's "not found" answers are rebuilt here (denials.ts), and only after the request parses:
 * the SDK rejects a malformed request before it looks the name up, so doing the same keeps hidden
 * and unknown indistinguishable.
 */
export const gatedReads = createReadGates<SdkExtra, Installation>({
  async hidden(installation, hidden: HiddenRead<SdkExtra>) {
    const { method, label, name, request } = hidden;
    if (!requestSchemas[method].safeParse(request).success) return hidden.sdkHandler(request, hidden.sdkContext);
    throw installation.settings.denied === 'explain' ? deniedError(label, name, hidden.gated.view.explain(hidden.gated.context, hidden.entry)) : notFound[label](name);
  },
});
