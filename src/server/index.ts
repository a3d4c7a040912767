// mcp-gate/server: the gate for McpServer of @modelcontextprotocol/server 2.4.x (protocol 2026-07-28 and 2025 sessions).
export { createGate, gate, type Gate, type GateOptions, type InstallOptions } from './gate.js';
export type { MissingCapabilityMode } from './gate-settings.js';
export type { DeniedMode } from '../adapter/gate-options.js';
export type { DecisionEvent } from '../adapter/decision-events.js';
export type { ListCounts } from '../adapter/list-items.js';
export type { MissingCapabilities } from '../core/policy/types.js';
export { InvalidCursorError } from '../adapter/pagination.js';
