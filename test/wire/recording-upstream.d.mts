import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The primitives: `secret-*` are hidden by the tests' policies, via `_meta` or the overlay. */
export function createRecordingUpstream(): McpServer;
/** Calls `record` with every message the server's transport receives, before the server sees it. */
export function recordMessages<T extends Transport>(transport: T, record: (message: unknown) => void): T;
