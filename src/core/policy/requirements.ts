import { compilePresenceCheck, type PresenceCheck } from '../logic/capability-path.js';
import { compileGlob, type GlobMatcher } from '../logic/glob-matcher.js';
import type { PrimitiveMetadata, RequestContext } from '../context.js';

export type MissingCapabilities = 'deny' | 'allow';

/** The metadata requirements of one primitive, compiled once; `check` returns null when met, else why not. */
export interface RequirementCheck {
  readonly isEmpty: boolean;
  met(context: RequestContext): boolean;
  unmet(context: RequestContext): string | null;
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
        return `client did not declare its capabilities; requires ${capabilities.map(({ path }) => `"${path}"`).join(', ')}`;
      }
      if (declared !== undefined) {
        const missing = capabilities.find(({ present }) => !present(declared));
        if (missing) return `requires client capability "${missing.path}"`;
      }
      const header = headers.find(({ name, value }) => context.request.headers[name] !== value);
      if (header) return `requires header "${header.name}: ${header.value}"`;
      if (endpoints.length > 0 && !endpoints.some((matches) => matches(context.request.endpoint))) {
        return `not available on endpoint "${context.request.endpoint}" (only ${primitive.endpoints.join(', ')})`;
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
