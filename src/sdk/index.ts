// mcp-gate/sdk: the gate for McpServer of @modelcontextprotocol/sdk 1.32.x.
export { createGate, gate, type Gate, type GateOptions } from './gate.js';
export type { DeniedMode } from '../adapter/gate-options.js';
export type { DecisionEvent } from '../adapter/decision-events.js';
export type { ListCounts } from '../adapter/list-items.js';
export type { MissingCapabilities } from '../core/policy/types.js';
export { InvalidCursorError } from '../adapter/pagination.js';
