import { createGatedPromptsList, createGatedResourcesList, createGatedTemplatesList, createGatedToolsList } from './gated-lists.js';
import { createGatedCompletion, createGatedPromptGet, createGatedResourceRead } from './gated-reads.js';
import { createGatedToolCall } from './gated-tool-call.js';
import type { Installation } from './installation.js';
import type { StoredHandler } from './server-internals.js';

export type GatedHandlerFactory = (installation: Installation, sdkHandler: StoredHandler) => StoredHandler;

/** Every method that names or lists a primitive; anything else passes through untouched. */
export const gatedHandlerFactories: ReadonlyMap<string, GatedHandlerFactory> = new Map<string, GatedHandlerFactory>([
  ['tools/list', createGatedToolsList],
  ['tools/call', createGatedToolCall],
  ['prompts/list', createGatedPromptsList],
  ['prompts/get', createGatedPromptGet],
  ['resources/list', createGatedResourcesList],
  ['resources/templates/list', createGatedTemplatesList],
  ['resources/read', createGatedResourceRead],
  ['completion/complete', createGatedCompletion],
]);
