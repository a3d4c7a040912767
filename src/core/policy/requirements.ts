import { compilePresenceCheck, type PresenceCheck } from '../logic/capability-path.js';
import { compileGlob, type GlobMatcher } from '../logic/glob-matcher.js';
import type { PrimitiveMetadata, RequestContext } from '../context.js';
import type { UnmetRequirement } from './types.js';

export type MissingCapabilities = 'deny' | 'allow';

/** The metadata requirements of one primitive, compiled once; `unmet` returns null when met, else which one is not. */
export interface RequirementCheck {
  readonly isEmpty: boolean;
  met(context: RequestContext): boolean;
  unmet(context: RequestContext): UnmetRequirement | null;
}

/** The sentence `explain` shows for an unmet requirement. */
export function describeUnmet(unmet: UnmetRequirement): string {
  switch (unmet.kind) {
    case 'capability':
      return `requires client capability "${unmet.capability}"`;
    case 'capabilities-undeclared':
      return `client did not declare its capabilities; requires ${unmet.capabilities.map((path) => `"${path}"`).join(', ')}`;
    case 'header':
      return `requires header "${unmet.header}: ${unmet.value}"`;
    case 'endpoint':
      return `not available on endpoint "${unmet.endpoint}" (only ${unmet.allowed.join(', ')})`;
  }
}

export const noRequirements: RequirementCheck = { isEmpty: true, met: () => true, unmet: () => null };

export function compileRequirements(primitive: PrimitiveMetadata, onMissingCapabilities: MissingCapabilities): RequirementCheck {
  const capabilities = primitive.requires.capabilities.map((path) => ({ path, present: compilePresenceCheck(path) }));
  const headers = Object.entries(primitive.requires.headers).map(([name, value]) => ({ name: name.toLowerCase(), value }));
  const endpoints: GlobMatcher[] = primitive.endpoints.map(compileGlob);
  if (capabilities.length === 0 && headers.length === 0 && endpoints.length === 0) return noRequirements;

  const capabilitiesMet = (declared: RequestContext['client']['capabilities']) =>
    declared === undefined ? onMissingCapabilities === 'allow' : capabilities.every(({ present }: { present: PresenceCheck }) => present(declared));

  return {
    isEmpty: false,
    met(context) {
      if (capabilities.length > 0 && !capabilitiesMet(context.client.capabilities)) return false;
      for (let index = 0; index < headers.length; index++) {
        const header = headers[index]!;
        if (context.request.headers[header.name] !== header.value) return false;
      }
      if (endpoints.length === 0) return true;
      const endpoint = context.request.endpoint;
      for (let index = 0; index < endpoints.length; index++) if (endpoints[index]!(endpoint)) return true;
      return false;
    },
    unmet(context) {
      const declared = context.client.capabilities;
      if (capabilities.length > 0 && declared === undefined && onMissingCapabilities === 'deny') {
        return { kind: 'capabilities-undeclared', capabilities: capabilities.map(({ path }) => path) };
      }
      if (declared !== undefined) {
        const missing = capabilities.find(({ present }) => !present(declared));
        if (missing) return { kind: 'capability', capability: missing.path };
      }
      const header = headers.find(({ name, value }) => context.request.headers[name] !== value);
      if (header) return { kind: 'header', header: header.name, value: header.value };
      if (endpoints.length > 0 && !endpoints.some((matches) => matches(context.request.endpoint))) {
        return { kind: 'endpoint', endpoint: context.request.endpoint, allowed: primitive.endpoints };
      }
      return null;
    },
  };
}

/** The context paths requirements of these primitives read (for cache keys). */
export function requirementReads(primitives: readonly PrimitiveMetadata[]): string[] {
  const reads = new Set<string>();
  for (const primitive of primitives) {
    if (primitive.requires.capabilities.length > 0) reads.add('client.capabilities');
    for (const name of Object.keys(primitive.requires.headers)) reads.add(`request.headers.${name.toLowerCase()}`);
    if (primitive.endpoints.length > 0) reads.add('request.endpoint');
  }
  return [...reads];
}
