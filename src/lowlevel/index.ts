// mcp-gate/lowlevel: the gate for the low-level Server of @modelcontextprotocol/sdk 1.x, and for
// frameworks that dispatch on it themselves (fastmcp 4.x, mcp-framework 0.2.x). See docs/lowlevel.md.
export { createGate, gate, type Gate, type GateOptions } from './gate.js';
export { gateFastMCP, type FastMCPInstance, type FastMCPSessionInstance } from './fastmcp.js';
export { gateMcpFramework, type McpFrameworkServerInstance } from './mcp-framework.js';
export { compileOverlay, type Overlay, type OverlayDocument } from '../wire/overlay.js';
export type { DecisionEvent } from '../adapter/decision-events.js';
export type { MissingCapabilities } from '../core/policy/types.js';
