import { PolicyOptionError } from '../core/errors.js';

// @modelcontextprotocol/sdk (v1) is an optional peer, like the v2 server package: a project on
// the v2 package alone imports mcp-gate/testing too. The v1 modules the kit uses load here once,
// when installed; the features that need them say so when they are not.

type V1Modules = {
  readonly types: typeof import('@modelcontextprotocol/sdk/types.js');
  readonly mcp: typeof import('@modelcontextprotocol/sdk/server/mcp.js');
  readonly completable: typeof import('@modelcontextprotocol/sdk/server/completable.js');
  readonly client: typeof import('@modelcontextprotocol/sdk/client/index.js');
  readonly inMemory: typeof import('@modelcontextprotocol/sdk/inMemory.js');
};

async function load(): Promise<V1Modules | undefined> {
  try {
    const [types, mcp, completable, client, inMemory] = await Promise.all([
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/completable.js'),
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/inMemory.js'),
    ]);
    return { types, mcp, completable, client, inMemory };
  } catch {
    return undefined;
  }
}

const loaded = await load();

/** The v1 SDK's modules, or a PolicyOptionError naming the feature that needs them. */
export function v1Sdk(feature: string): V1Modules {
  if (loaded === undefined) {
    throw new PolicyOptionError(`${feature} needs @modelcontextprotocol/sdk 1.x (the v1 SDK), which is not installed`);
  }
  return loaded;
}
