import fc from 'fast-check';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { clientProfiles } from '../../src/profiles/client-profiles.js';
import { requestContextSchema } from '../../src/core/context.js';
import { primitiveMetadataSchema } from '../../src/core/primitive-metadata.js';
import { PolicyCompileError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import {
  brokenPolicyDocuments,
  callers,
  capabilitiesSeenByServer,
  connectAsCaller,
  createRegistryServer,
  policyDocuments,
  primitiveMetadata,
  profileCallers,
  readRegistry,
  registries,
  requestContexts,
  type BrokenPolicy,
} from '../../src/testing/index.js';
import { propertyParameters } from '../properties/seed.js';

function issuesOf(document: unknown): { code: string; path: string }[] {
  try {
    compilePolicy(document);
  } catch (error) {
    if (error instanceof PolicyCompileError) return error.issues.map(({ code, path }) => ({ code, path }));
    throw error;
  }
  return [];
}

function expectEveryIssue(broken: BrokenPolicy): void {
  const reported = issuesOf(broken.document);
  for (const issue of broken.expected) {
    expect(reported, `${broken.defects.join('; ')} → expected ${issue.code} at "${issue.path}"`).toContainEqual(issue);
  }
}

describe('callers', () => {
  it('covers every real client profile, and each initializes against a real server as the oracle assumes', async () => {
    const profiles = profileCallers();
    expect(profiles.map((caller) => caller.client.name)).toEqual(clientProfiles.map((profile) => profile.id));
    for (const caller of profiles) {
      const server = new McpServer({ name: 'probe', version: '1.0.0' });
      const connection = await connectAsCaller(server, caller);
      expect(server.server.getClientCapabilities()).toEqual(capabilitiesSeenByServer(caller));
      expect(server.server.getClientVersion()).toEqual({ name: caller.client.name, version: '1.0.0' });
      await connection.close();
    }
  });

  it('draws real profiles and synthetic clients, and sends no headers over stdio', () => {
    const sample = fc.sample(callers(), { seed: 7, numRuns: 400 });
    const profileIds = new Set(clientProfiles.map((profile) => profile.id));
    expect(sample.some((caller) => profileIds.has(caller.client.name))).toBe(true);
    expect(sample.some((caller) => !profileIds.has(caller.client.name))).toBe(true);
    expect(sample.filter((caller) => caller.endpoint === '').every((caller) => Object.keys(caller.headers).length === 0)).toBe(true);
    expect(sample.some((caller) => caller.auth !== undefined)).toBe(true);
  });
});

describe('requestContexts and primitiveMetadata', () => {
  it('produce frozen values the core schemas accept', () => {
    fc.assert(
      fc.property(requestContexts(), primitiveMetadata(), (context, primitive) => {
        expect(requestContextSchema.safeParse(context).success).toBe(true);
        expect(primitiveMetadataSchema.safeParse(primitive).success).toBe(true);
        expect(Object.isFrozen(context.request.headers) && Object.isFrozen(primitive.requires)).toBe(true);
      }),
      propertyParameters(300),
    );
  });
});

describe('policyDocuments', () => {
  it('produces documents that compile', () => {
    fc.assert(
      fc.property(policyDocuments(), (document) => void compilePolicy(document)),
      propertyParameters(300),
    );
  });
});

describe('brokenPolicyDocuments', () => {
  it('produces schema defects that compilePolicy reports, each at its path', () => {
    fc.assert(fc.property(brokenPolicyDocuments(['schema']), expectEveryIssue), propertyParameters(400));
  });

  it('produces JSON-Logic defects and duplicate ids that compilePolicy reports, each at its path', () => {
    fc.assert(fc.property(brokenPolicyDocuments(['logic']), expectEveryIssue), propertyParameters(400));
  });
});

describe('registries', () => {
  it('builds real servers whose registries hold exactly the generated registrations', () => {
    fc.assert(
      fc.property(registries(), (registry) => {
        const read = readRegistry(createRegistryServer(registry));
        expect(read.filter((primitive) => primitive.kind === 'tool').map((tool) => tool.key)).toEqual(registry.tools.map((tool) => tool.key));
        expect(read.filter((primitive) => primitive.kind === 'resource').map((resource) => resource.uri)).toEqual(registry.resources.map((resource) => resource.uri));
        expect(read.filter((primitive) => primitive.kind === 'resourceTemplate').map((template) => template.uriTemplate?.toString())).toEqual(
          registry.templates.map((template) => template.uriTemplate),
        );
      }),
      propertyParameters(100),
    );
  });
});
