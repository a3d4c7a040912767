import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { importPeers, MissingPeerError, missingPackage } from '../../src/cli/peers.js';

/** What Node itself throws for a package that is not installed, from an ES module and from a CommonJS `require`. */
async function realNotFound(): Promise<{ esm: unknown; cjs: unknown; cjsFile: unknown }> {
  const specifier = 'mcp-gate-test-no-such-package/sub/path.js';
  const esm = await import(specifier).catch((error: unknown) => error);
  const require = createRequire(import.meta.url);
  const caught = (load: () => unknown) => {
    try {
      load();
    } catch (error) {
      return error;
    }
    throw new Error('the require did not fail');
  };
  return { esm, cjs: caught(() => require('@grpc/grpc-js-no-such-package')), cjsFile: caught(() => require('./no-such-file.js')) };
}

describe('missingPackage', () => {
  it("reads the package from Node's own errors: an ES import, and a require inside a CommonJS peer (as the flagd provider loads gRPC)", async () => {
    const { esm, cjs, cjsFile } = await realNotFound();
    expect(missingPackage(esm)).toBe('mcp-gate-test-no-such-package');
    expect(missingPackage(cjs)).toBe('@grpc/grpc-js-no-such-package');
    expect(missingPackage(cjsFile)).toBeUndefined();
  });
});

describe('importPeers', () => {
  const grpcMissing = () =>
    Promise.reject(
      Object.assign(new Error("Cannot find module '@grpc/grpc-js'\nRequire stack:\n- /p/node_modules/@openfeature/flagd-provider/index.cjs.js"), { code: 'MODULE_NOT_FOUND' }),
    );
  const sdkMissing = () =>
    Promise.reject(
      Object.assign(new Error("Cannot find package '@openfeature/server-sdk' imported from /p/node_modules/mcp-gate/dist/cli/policy-flag-source.js"), {
        code: 'ERR_MODULE_NOT_FOUND',
      }),
    );

  it('names every missing peer in one line, with how to install them', async () => {
    const error = await importPeers('mcp-gate serve --policy-flag', [
      ['@openfeature/server-sdk', sdkMissing],
      ['@openfeature/flagd-provider', grpcMissing],
    ] as const).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingPeerError);
    expect((error as Error).message).toBe(
      'mcp-gate serve --policy-flag: needs @openfeature/server-sdk (the OpenFeature server SDK), @grpc/grpc-js (gRPC for Node, which the flagd provider loads), which are not installed; install them with: npm install "@openfeature/server-sdk@^1.17.0" "@grpc/grpc-js@>=1.8.0 <1.15.0"',
    );
  });

  it('names one missing peer in the singular', async () => {
    const error = await importPeers('mcp-gate proxy --policy-flag', [['@openfeature/flagd-provider', grpcMissing]] as const).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      'mcp-gate proxy --policy-flag: needs @grpc/grpc-js (gRPC for Node, which the flagd provider loads), which is not installed; install it with: npm install "@grpc/grpc-js@>=1.8.0 <1.15.0"',
    );
  });

  it('passes through a package missing from inside a peer that is not ours, and returns the modules when all are there', async () => {
    const notOurs = Object.assign(new Error("Cannot find package 'object-hash' imported from /p/node_modules/@openfeature/flagd-core/index.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(importPeers('x', [['@openfeature/flagd-provider', () => Promise.reject(notOurs)]] as const)).rejects.toBe(notOurs);
    const [sdk, flagd] = await importPeers('x', [
      ['@openfeature/server-sdk', () => import('@openfeature/server-sdk')],
      ['@openfeature/flagd-provider', () => import('@openfeature/flagd-provider')],
    ] as const);
    expect([typeof sdk.OpenFeature.getClient, typeof flagd.FlagdProvider]).toEqual(['function', 'function']);
  });
});

describe('src/cli/policy-flag-source.ts and flagd-provider.ts', () => {
  it('import the OpenFeature packages only when a flagd source is given (serve and proxy load them for every start)', () => {
    const texts = ['policy-flag-source.ts', 'flagd-provider.ts'].map((file) => readFileSync(new URL(`../../src/cli/${file}`, import.meta.url), 'utf8'));
    for (const text of texts) {
      const staticImports = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1]);
      expect(staticImports.filter((specifier) => specifier!.startsWith('@openfeature/') || specifier!.startsWith('@grpc/'))).toEqual([]);
    }
    expect(texts[1]).toContain("import('@openfeature/flagd-provider')");
  });
});
