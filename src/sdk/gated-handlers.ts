import type { GatedMethod } from '../adapter/server-hooks.js';
import { createGatedResourcesList, createGatedPromptsList, createGatedTemplatesList, createGatedToolsList } from './gated-lists.js';
import { createGatedCompletion, createGatedPromptGet, createGatedResourceRead } from './gated-reads.js';
import { createGatedToolCall } from './gated-tool-call.js';
import type { Installation } from './installation.js';
import type { StoredHandler } from './server-internals.js';

export type GatedHandlerFactory = (installation: Installation, sdkHandler: StoredHandler) => StoredHandler;

/** The gated form of each method in `gatedMethods`; the adapter's translations of one shared routing. */
export const gatedHandlerFactories: Readonly<Record<GatedMethod, GatedHandlerFactory>> = {
  'tools/list': createGatedToolsList,
  'tools/call': createGatedToolCall,
  'prompts/list': createGatedPromptsList,
  'prompts/get': createGatedPromptGet,
  'resources/list': createGatedResourcesList,
  'resources/templates/list': createGatedTemplatesList,
  'resources/read': createGatedResourceRead,
  'completion/complete': createGatedCompletion,
};
