import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '../core/policy/types.js';

/**
 * The SDK's own answers for names it does not know (SDK 1.32 mcp.js), so a hidden primitive is
 * indistinguishable from one never registered. Tests compare these with an ungated server.
 */
export function promptNotFound(name: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
}

export function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
}

export function resourceTemplateNotFound(uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Resource template ${uri} not found`);
}

/** `denied: 'explain'`: the decision's sentence instead of "not found", for trusted deployments. */
export function deniedError(label: 'Tool' | 'Prompt' | 'Resource' | 'Resource template', name: string, decision: Decision): McpError {
  return new McpError(ErrorCode.InvalidParams, `${label} ${name} denied: ${decision.message}`);
}

/** The shape McpServer gives every tool failure (its private createToolError). */
export function toolErrorResult(message: string): { content: { type: 'text'; text: string }[]; isError: true } {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A cursor this gate did not issue for this list, policy revision and context. */
export function invalidCursor(): McpError {
  return new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
}
