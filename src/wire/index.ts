// The wire binding: gates JSON-RPC traffic to an upstream MCP server reached through an SDK v1
// Client, with no registry to read (what `mcp-gate proxy` runs on). See docs/proxy.md.
export { compileOverlay, emptyOverlay, overlayDocumentSchema, type Overlay, type OverlayDocument } from './overlay.js';
export { RelayedError, relayedError } from './relayed-error.js';
export { defaultUpstreamTimeoutMs, forwardRequest, type ForwardOptions } from './upstream.js';
export { WireConnection, type WireSessionHooks } from './wire-connection.js';
export type { WireRequest } from './wire-routing.js';
export { createWireGate, type WireGate, type WireGateOptions } from './wire-gate.js';
