import type { JsonRpcRequest, StoredHandler } from './gated-request.js';

/**
 * A name no registration can have (it starts with NUL). Asking the SDK to call, get or complete
 * it yields exactly the SDK's "not found" answer on every path (task-augmented calls, malformed
 * arguments, its ordering of request validation before lookup); `answerRenamed` then puts the
 * name the client asked for in its place. Both SDK bindings use it for a hidden name.
 */
export const unknownNameProbe = '\u0000mcp-gate:unregistered';

/**
 * Replaces a name inside an `isError` tool result's text. Used to turn the SDK's answer for a
 * probe name, or for a versioned tool's internal key, into the name the client asked for, so
 * internal names never reach the client. Any other result is returned as it is.
 */
export function renameInToolResult(result: unknown, from: string, to: string): unknown {
  if (result === null || typeof result !== 'object') return result;
  const { content, isError } = result as { content?: unknown; isError?: unknown };
  if (isError !== true || !Array.isArray(content)) return result;
  const renamed = content.map((item: unknown) => {
    const text = (item as { text?: unknown } | null)?.text;
    return typeof text === 'string' && text.includes(from) ? { ...(item as object), text: text.split(from).join(to) } : item;
  });
  return { ...(result as object), content: renamed };
}

/** Replaces a name inside a thrown error's message (probe or internal key → the name asked for). */
export function renameInError(error: unknown, from: string, to: string): unknown {
  if (error instanceof Error && error.message.includes(from)) error.message = error.message.split(from).join(to);
  return error;
}

/**
 * Lets the SDK answer a request rewritten to another name (`routed`), then shows the client the
 * name it asked for in whatever comes back, result or error.
 */
export async function answerRenamed<SdkContext>(
  sdkHandler: StoredHandler<SdkContext>,
  routed: JsonRpcRequest,
  sdkContext: SdkContext,
  from: string,
  to: string,
): Promise<unknown> {
  try {
    return renameInToolResult(await sdkHandler(routed, sdkContext), from, to);
  } catch (error) {
    throw renameInError(error, from, to);
  }
}
