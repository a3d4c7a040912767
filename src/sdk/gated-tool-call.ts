import { createToolCallGate } from '../adapter/gated-tool-call.js';
import { deniedError, toolErrorResult } from './denials.js';
import type { Installation } from './installation.js';
import type { SdkExtra } from './server-internals.js';

/** tools/call (adapter/gated-tool-call.ts); SDK 1.32 reports a denial, as any tool failure, as an `isError` result. */
export const createGatedToolCall = createToolCallGate<SdkExtra, Installation>((installation, gated, entry, name) => {
  if (installation.settings.denied !== 'explain' || entry === undefined) return undefined;
  return Promise.resolve(toolErrorResult(deniedError('Tool', name, gated.view.explain(gated.context, entry)).message));
});
