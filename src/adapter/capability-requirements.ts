import { hasCapabilityPath } from '../core/logic/capability-path.js';

/** The required capability paths a client did not declare, in requirement order. */
export function missingCapabilities(required: readonly string[], declared: unknown): string[] {
  return required.filter((path) => !hasCapabilityPath(declared, path));
}

/**
 * Capability paths as the ClientCapabilities object MCP's error -32021 carries in
 * `data.requiredCapabilities`: `sampling` → `{ sampling: {} }`, `elicitation.url` →
 * `{ elicitation: { url: {} } }`. Extension names contain dots, so everything after
 * `extensions.` is one key: `extensions.com.example/x` → `{ extensions: { 'com.example/x': {} } }`.
 */
export function toCapabilitiesObject(paths: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    const segments = path.startsWith('extensions.') ? ['extensions', path.slice('extensions.'.length)] : path.split('.');
    let node = root;
    for (const segment of segments) {
      const next = node[segment];
      node = (node[segment] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
    }
  }
  return root;
}
