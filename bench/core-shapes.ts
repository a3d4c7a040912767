// The three policy shapes of the core benchmark (issue 2), each written four ways that must agree:
// an mcp-gate policy document, one JSON-Logic rule over a merged `{request, client, auth,
// primitive}` object (for json-logic-js, json-logic-engine and mcp-gate's compilePredicate), and a
// hand-written closure. Data is generated from a fixed seed, so every run sees the same inputs.

import {
  createPrimitiveMetadata,
  createRequestContext,
  type PolicyDocument,
  type PrimitiveAnnotation,
  type PrimitiveMetadata,
  type RequestContext,
  type RequestContextInput,
} from '../src/index.js';

export type ShapeId = 'canary' | 'capabilities' | 'mix';

export interface Shape {
  readonly id: ShapeId;
  readonly title: string;
  /** The policy as an mcp-gate user writes it (appliesTo, requirements, deny overrides allow). */
  readonly policy: PolicyDocument;
  /** The same decision as one JSON-Logic rule over `{request, client, auth, primitive}`. */
  readonly mergedRule: unknown;
  /** What a careful engineer would write by hand for this policy. */
  readonly handWritten: (context: RequestContext, primitive: PrimitiveMetadata) => boolean;
  /** The registry: 1,000 primitives. */
  readonly primitives: readonly PrimitiveMetadata[];
  /** Recurring callers (the decision cache sees each of them again and again). */
  readonly contexts: readonly RequestContext[];
  /**
   * Callers that differ in something the policy reads, more of them than the cache holds. Caller
   * `i` varies recurring caller `i % 16` in a field that is read but (mostly) decides nothing, so
   * any 16 consecutive unique callers cost about what the 16 recurring ones cost.
   */
  readonly uniqueContexts: readonly RequestContext[];
}

export const registrySize = 1000;
export const recurringContexts = 16;
// More unique callers than any case serves lists in one run (about 13,000), so no caller
// recurs: a pool that cycles would let the filter cache callers it sees again, and measure hits.
export const uniqueContextCount = 16384;

// ---------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: small, fast, and the same sequence on every machine. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, choices: readonly T[]): T {
  return choices[Math.floor(random() * choices.length)]!;
}

function chance(random: () => number, probability: number): boolean {
  return random() < probability;
}

function tool(index: number, annotation: PrimitiveAnnotation): PrimitiveMetadata {
  return createPrimitiveMetadata('tool', `tool-${String(index).padStart(4, '0')}`, annotation);
}

function context(input: RequestContextInput): RequestContext {
  return createRequestContext({ ...input, request: { method: 'tools/list', ...input.request } });
}

/** Recurring callers from their inputs, and unique callers as variations of them. */
function callers(
  inputs: readonly RequestContextInput[],
  vary: (input: RequestContextInput, index: number) => RequestContextInput,
): { contexts: RequestContext[]; uniqueContexts: RequestContext[] } {
  return {
    contexts: inputs.map(context),
    uniqueContexts: Array.from({ length: uniqueContextCount }, (_, index) => context(vary(inputs[index % inputs.length]!, index))),
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the hand-written closures and the custom operators the baselines need.
// They follow mcp-gate's documented semantics on the inputs generated here.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

/**
 * Capability presence (`{}` counts), where a key may itself contain dots
 * (`extensions.com.example/report-export`). Each path is compiled once: every way of grouping its
 * segments into keys is precomputed, so a check allocates nothing.
 */
function compileCapabilityCheck(path: string): (root: unknown) => boolean {
  const segments = path.split('.');
  const keys = segments.map((_, from) => segments.map((__, end) => segments.slice(from, end + 1).join('.')));
  function find(node: unknown, from: number): boolean {
    if (from === segments.length) return isPresent(node);
    if (!isRecord(node)) return false;
    const row = keys[from]!;
    for (let end = from; end < segments.length; end++) {
      const key = row[end]!;
      if (Object.hasOwn(node, key) && find(node[key], end + 1)) return true;
    }
    return false;
  }
  return function hasCapabilityPath(root) {
    return find(root, 0);
  };
}

const capabilityChecks = new Map<string, (root: unknown) => boolean>();

export function hasCapability(root: unknown, path: string): boolean {
  let check = capabilityChecks.get(path);
  if (check === undefined) {
    check = compileCapabilityCheck(path);
    capabilityChecks.set(path, check);
  }
  return check(root);
}

/** `has_capabilities(capabilities, paths)` for the baselines: every path present (true for none). */
export function hasCapabilities(root: unknown, paths: unknown): boolean {
  if (!Array.isArray(paths)) return false;
  for (let index = 0; index < paths.length; index++) if (!hasCapability(root, paths[index] as string)) return false;
  return true;
}

/**
 * A strict `major.minor.patch` packed into one comparable number (parts below 65,536), or -1.
 * Parses without allocating; the sample data holds only such versions (or none).
 */
export function packVersion(value: unknown): number {
  if (typeof value !== 'string' || value.length === 0) return -1;
  let packed = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let index = 0; index <= value.length; index++) {
    const code = index < value.length ? value.charCodeAt(index) : 46;
    if (code >= 48 && code <= 57) {
      if (digits === 1 && part === 0) return -1; // leading zero
      part = part * 10 + (code - 48);
      digits++;
      if (part > 0xffff) return -1;
    } else if (code === 46 && digits > 0 && parts < 3) {
      packed = packed * 0x10000 + part;
      parts++;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  return parts === 3 ? packed : -1;
}

/** flagd's `sem_ver` on strict versions: null when either side is not a version. */
export function semVer(actual: unknown, operator: unknown, target: unknown): boolean | null {
  const a = packVersion(actual);
  const b = packVersion(target);
  if (a < 0 || b < 0) return null;
  const major = (version: number) => Math.floor(version / 0x100000000);
  const minor = (version: number) => Math.floor(version / 0x10000);
  switch (operator) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '^':
      return major(a) === major(b);
    case '~':
      return minor(a) === minor(b);
    default:
      return null;
  }
}

export function startsWith(value: unknown, prefix: unknown): boolean | null {
  return typeof value === 'string' && typeof prefix === 'string' ? value.startsWith(prefix) : null;
}

export function endsWith(value: unknown, suffix: unknown): boolean | null {
  return typeof value === 'string' && typeof suffix === 'string' ? value.endsWith(suffix) : null;
}

const globPatterns = new Map<string, RegExp>();

/** `*` within a segment, `**` across segments, `?` one character; compiled once per pattern. */
export function glob(pattern: unknown, value: unknown): boolean {
  if (typeof pattern !== 'string' || typeof value !== 'string') return false;
  let regex = globPatterns.get(pattern);
  if (regex === undefined) {
    const source = pattern.replace(/\*\*|\*|\?|[.+^${}()|[\]\\]/g, (token) => (token === '**' ? '.*' : token === '*' ? '[^/]*' : token === '?' ? '[^/]' : `\\${token}`));
    regex = new RegExp(`^${source}$`, 's');
    globPatterns.set(pattern, regex);
  }
  return regex.test(value);
}

/** The operators beyond standard JSON-Logic that the merged rules use, as plain functions. */
export const baselineOperators = {
  sem_ver: semVer,
  starts_with: startsWith,
  ends_with: endsWith,
  glob,
  has_capabilities: hasCapabilities,
} as const;

// ---------------------------------------------------------------------------------------------
// Shape 1: canary by header. Primitives in group `canary` are visible only with `x-canary: 1`.

function createCanaryShape(): Shape {
  const random = createRandom(0x5eed0001);
  const otherGroups = ['files', 'search', 'billing', 'admin'];
  const primitives = Array.from({ length: registrySize }, (_, index) => {
    const groups = otherGroups.filter(() => chance(random, 0.3));
    if (chance(random, 0.25)) groups.push('canary');
    return tool(index, { groups });
  });
  const canaryHeader = ['1', '1', '0', undefined, undefined, 'yes'];
  const inputs = Array.from({ length: recurringContexts }, (_, index): RequestContextInput => {
    const value = canaryHeader[index % canaryHeader.length];
    const headers: Record<string, string> = { 'user-agent': `agent/${index}`, accept: 'application/json' };
    if (value !== undefined) headers['x-canary'] = value;
    return { request: { headers, endpoint: '/mcp' }, client: { name: 'cursor', version: '1.4.0' } };
  });
  // Only the header is read, so unique callers send unique header values (none of them "1").
  const { contexts, uniqueContexts } = callers(inputs, (input, index) => ({
    ...input,
    request: { ...input.request, headers: { ...input.request?.headers, 'x-canary': `build-${index}` } },
  }));
  return {
    id: 'canary',
    title: 'canary by header',
    policy: {
      version: 1,
      default: 'allow',
      rules: [
        {
          id: 'canary-needs-header',
          effect: 'deny',
          appliesTo: { groups: ['canary'] },
          when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] },
        },
      ],
    },
    mergedRule: {
      or: [{ '!': { in: ['canary', { var: 'primitive.groups' }] } }, { '===': [{ var: 'request.headers.x-canary' }, '1'] }],
    },
    handWritten: function canaryByHeader(context, primitive) {
      return !primitive.groups.includes('canary') || context.request.headers['x-canary'] === '1';
    },
    primitives,
    contexts,
    uniqueContexts,
  };
}

// ---------------------------------------------------------------------------------------------
// Shape 2: capability gating. No rules: primitives declare `requires.capabilities`, enforced by
// default. A third need `sampling`, some `elicitation.url`, some an extension.

const capabilityProfiles: ReadonlyArray<Record<string, unknown> | undefined> = [
  undefined, // stateless request: no capabilities declared
  {},
  { sampling: {} },
  { roots: { listChanged: true } },
  { sampling: {}, elicitation: { form: {}, url: {} } },
  { elicitation: {} },
  { elicitation: { form: {} } },
  { sampling: {}, extensions: { 'com.example/report-export': {} } },
  { elicitation: { url: {} }, extensions: { 'com.example/report-export': { formats: ['csv'] } } },
  { sampling: { tools: {} }, elicitation: { url: {} }, roots: { listChanged: true }, extensions: { 'com.example/report-export': {} } },
];

function createCapabilitiesShape(): Shape {
  const random = createRandom(0x5eed0002);
  const primitives = Array.from({ length: registrySize }, (_, index) => {
    const capabilities: string[] = [];
    if (chance(random, 1 / 3)) capabilities.push('sampling');
    if (chance(random, 0.2)) capabilities.push('elicitation.url');
    if (chance(random, 0.12)) capabilities.push('extensions.com.example/report-export');
    return tool(index, { groups: [pick(random, ['files', 'search', 'reports'])], requires: { capabilities } });
  });
  const inputs = Array.from({ length: recurringContexts }, (_, index): RequestContextInput => ({
    request: { headers: {}, endpoint: '/mcp' },
    client: { name: 'client', version: '1.0.0', capabilities: capabilityProfiles[index % capabilityProfiles.length] },
  }));
  // The key is the declared capabilities: unique callers declare an extension of their own (a
  // caller that declared nothing now declares only that, which satisfies no requirement either).
  const { contexts, uniqueContexts } = callers(inputs, (input, index) => {
    const declared = input.client?.capabilities ?? {};
    const extensions = { ...(declared['extensions'] as Record<string, unknown> | undefined), [`io.vendor/build-${index}`]: {} };
    return { ...input, client: { ...input.client, capabilities: { ...declared, extensions } } };
  });
  return {
    id: 'capabilities',
    title: 'capability gating (requires.capabilities)',
    policy: { version: 1, default: 'allow', rules: [] },
    mergedRule: { has_capabilities: [{ var: 'client.capabilities' }, { var: 'primitive.requires.capabilities' }] },
    handWritten: function gateOnCapabilities(context, primitive) {
      const required = primitive.requires.capabilities;
      if (required.length === 0) return true;
      const declared = context.client.capabilities;
      if (declared === undefined) return false;
      for (let index = 0; index < required.length; index++) if (!hasCapability(declared, required[index]!)) return false;
      return true;
    },
    primitives,
    contexts,
    uniqueContexts,
  };
}

// ---------------------------------------------------------------------------------------------
// Shape 3: a mix of twelve clauses over four rules: sem_ver, group and tag membership, header
// equality, endpoint prefix (starts_with and glob), scopes, subject suffix. Default deny.

const knownClients = ['claude-code', 'cursor', 'vscode'] as const;
const minimumVersion = '1.4.0';
const betaVersion = '2.1.0';

const denyAdmin = {
  or: [{ '!': { starts_with: [{ var: 'request.endpoint' }, '/mcp/admin'] } }, { '!': { in: ['admin', { var: 'auth.scopes' }] } }],
};
const denyBeta = {
  or: [{ '!': { sem_ver: [{ var: 'client.version' }, '>=', betaVersion] } }, { '!==': [{ var: 'request.headers.x-beta' }, 'on'] }],
};
const denyInternal = { '!': { ends_with: [{ var: 'auth.subject' }, '@example.com'] } };
const allowKnown = {
  and: [
    { in: [{ var: 'client.name' }, [...knownClients]] },
    { sem_ver: [{ var: 'client.version' }, '>=', minimumVersion] },
    { '===': [{ var: 'request.headers.x-tenant' }, 'acme'] },
    { glob: ['/mcp/**', { var: 'request.endpoint' }] },
  ],
};

function createMixShape(): Shape {
  const random = createRandom(0x5eed0003);
  const primitives = Array.from({ length: registrySize }, (_, index) => {
    const groups = [pick(random, ['files', 'search', 'billing'])];
    if (chance(random, 0.15)) groups.push('admin');
    const tags = ['readonly', 'beta', 'internal', 'export'].filter((tag) => chance(random, tag === 'readonly' ? 0.5 : 0.15));
    return tool(index, { groups, tags });
  });
  const names = [...knownClients, 'cursor', 'claude-code', 'other-client', undefined];
  const versions = ['2.4.1', '2.1.0', '1.10.2', '1.4.0', '2.0.5', '10.0.0', '1.3.9', '0.9.3', undefined];
  const endpoints = ['/mcp/', '/mcp/admin', '/mcp/admin/tools', '/mcp/tenant/acme', '/mcp', '/other'];
  const subjects = ['alice@example.com', 'bob@example.com', 'carol@partner.io', undefined];
  function callerInput(subject: string | undefined): RequestContextInput {
    const headers: Record<string, string> = { 'user-agent': 'bench' };
    if (chance(random, 0.75)) headers['x-tenant'] = chance(random, 0.85) ? 'acme' : 'globex';
    if (chance(random, 0.6)) headers['x-beta'] = 'on';
    return {
      request: { headers, endpoint: pick(random, endpoints) },
      client: { name: pick(random, names), version: pick(random, versions) },
      auth: { subject, scopes: chance(random, 0.5) ? ['read', 'admin'] : ['read'] },
    };
  }
  const inputs = Array.from({ length: recurringContexts }, () => callerInput(pick(random, subjects)));
  // The subject is read (ends_with), so unique callers have subjects of their own, on the same
  // side of "@example.com" as the recurring caller they vary.
  const { contexts, uniqueContexts } = callers(inputs, (input, index) => {
    const domain = input.auth?.subject?.endsWith('@example.com') ? 'example.com' : 'partner.io';
    return { ...input, auth: { ...input.auth, subject: `user-${index}@${domain}` } };
  });

  const minimum = packVersion(minimumVersion);
  const beta = packVersion(betaVersion);
  const known = new Set<string>(knownClients);
  return {
    id: 'mix',
    title: '12-clause mix (sem_ver, groups, tags, headers, endpoint prefix)',
    policy: {
      version: 1,
      default: 'deny',
      rules: [
        { id: 'admin-on-admin-endpoint', effect: 'deny', appliesTo: { groups: ['admin'] }, when: denyAdmin },
        { id: 'beta-needs-new-client', effect: 'deny', appliesTo: { tags: ['beta'] }, when: denyBeta },
        { id: 'internal-for-staff', effect: 'deny', appliesTo: { tags: ['internal'] }, when: denyInternal },
        { id: 'known-clients', effect: 'allow', when: allowKnown },
      ],
    },
    // Deny overrides allow, default deny: !deny1 && !deny2 && !deny3 && allow.
    mergedRule: {
      and: [
        { '!': { and: [{ in: ['admin', { var: 'primitive.groups' }] }, denyAdmin] } },
        { '!': { and: [{ in: ['beta', { var: 'primitive.tags' }] }, denyBeta] } },
        { '!': { and: [{ in: ['internal', { var: 'primitive.tags' }] }, denyInternal] } },
        allowKnown,
      ],
    },
    handWritten: function gateOnMix(context, primitive) {
      const { request, client, auth } = context;
      if (primitive.groups.includes('admin') && (!request.endpoint.startsWith('/mcp/admin') || !auth.scopes.includes('admin'))) {
        return false;
      }
      if (primitive.tags.includes('beta') && (packVersion(client.version) < beta || request.headers['x-beta'] !== 'on')) {
        return false;
      }
      if (primitive.tags.includes('internal') && !(auth.subject !== undefined && auth.subject.endsWith('@example.com'))) {
        return false;
      }
      const version = packVersion(client.version);
      return client.name !== undefined && known.has(client.name) && version >= minimum && request.headers['x-tenant'] === 'acme' && request.endpoint.startsWith('/mcp/');
    },
    primitives,
    contexts,
    uniqueContexts,
  };
}

const shapeFactories: Readonly<Record<ShapeId, () => Shape>> = {
  canary: createCanaryShape,
  capabilities: createCapabilitiesShape,
  mix: createMixShape,
};

export const shapeIds = Object.keys(shapeFactories) as ShapeId[];

export function isShapeId(value: string): value is ShapeId {
  return Object.hasOwn(shapeFactories, value);
}

export function createShape(id: ShapeId): Shape {
  return shapeFactories[id]();
}

/** The object json-logic-js and json-logic-engine evaluate the merged rule against. */
export function mergeData(context: RequestContext, primitive: PrimitiveMetadata): Record<string, unknown> {
  return { request: context.request, client: context.client, auth: context.auth, primitive };
}
