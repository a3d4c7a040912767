import { InMemoryProvider, OpenFeature, type Client } from '@openfeature/server-sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export const policyFlagKey = 'mcp-policy';

export const allowEverything = { version: 1 as const, default: 'allow' as const, rules: [] };
export const hideBeta = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'no-beta', effect: 'deny' as const, appliesTo: { groups: ['beta'] }, when: true }],
};
export const hideEverything = { version: 1 as const, default: 'deny' as const, rules: [] };

/** An in-memory flag configuration holding `value` as the object flag `key`. */
export function policyFlag(value: unknown, key = policyFlagKey): FlagConfiguration {
  return { [key]: { variants: { current: value as never }, defaultVariant: 'current', disabled: false } };
}

/** The InMemoryProvider's flag configuration (its type is not exported by the SDK). */
export type FlagConfiguration = NonNullable<ConstructorParameters<typeof InMemoryProvider>[0]>;

let domains = 0;

/** A real OpenFeature client bound to its own InMemoryProvider, under a domain no other test uses. */
export async function createInMemoryClient(configuration: FlagConfiguration): Promise<{ client: Client; provider: InMemoryProvider }> {
  const domain = `mcp-gate-openfeature-test-${++domains}`;
  const provider = new InMemoryProvider(configuration);
  await OpenFeature.setProviderAndWait(domain, provider);
  return { client: OpenFeature.getClient(domain), provider };
}

/** A v1 McpServer with a stable and a beta tool. */
export function createServer(): McpServer {
  const server = new McpServer({ name: 'openfeature-fixture', version: '0.0.1' });
  server.registerTool('stable', {}, async () => ({ content: [{ type: 'text', text: 'stable' }] }));
  server.registerTool('beta', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [{ type: 'text', text: 'beta' }] }));
  return server;
}

/** Collects callback values; `next()` waits for the next one, bounded by a timeout. */
export function createRecorder<T>(timeoutMs = 5_000): { push: (value: T) => void; next: () => Promise<T>; values: T[] } {
  const values: T[] = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  return {
    values,
    push(value) {
      values.push(value);
      waiters.splice(0).forEach((wake) => wake());
    },
    async next() {
      const deadline = Date.now() + timeoutMs;
      while (values.length <= taken) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no callback within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return values[taken++]!;
    },
  };
}
