import { compilePresenceCheck, type PresenceCheck } from '../logic/capability-path.js';
import { compileGlob, type GlobMatcher } from '../logic/glob-matcher.js';
import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { RequestMemo } from '../request-memo.js';
import type { MissingCapabilities, UnmetRequirement } from './types.js';

export type { MissingCapabilities };

/** The metadata requirements of one primitive, compiled once; `unmet` returns null when met, else which one is not. */
export interface RequirementCheck {
  readonly isEmpty: boolean;
  /** `memo` (this request's, when it has one) remembers whether each distinct capability set was declared. */
  met(context: RequestContext, memo?: RequestMemo): boolean;
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

type Declared = RequestContext['client']['capabilities'];

/**
 * Compiles requirement checks and shares them between primitives with identical requirements
 * (a registry has many tools but few distinct requirement sets). Each distinct capability set
 * gets an index in the request memo, so one request tests each set once however many
 * primitives require it; without a memo, a set remembers its answer for the last frozen
 * capabilities object it saw (contexts of one session share one frozen copy).
 */
export function createRequirementCompiler(onMissingCapabilities: MissingCapabilities): (primitive: PrimitiveMetadata) => RequirementCheck {
  const checks = new Map<string, RequirementCheck>();
  const capabilitySets = new Map<string, CapabilitiesCheck>();
  function capabilitiesCheck(paths: readonly string[]): CapabilitiesCheck {
    const key = JSON.stringify(paths);
    let check = capabilitySets.get(key);
    if (check === undefined) {
      check = compileCapabilities(paths, onMissingCapabilities, capabilitySets.size);
      capabilitySets.set(key, check);
    }
    return check;
  }
  return function requirementsOf(primitive) {
    const { capabilities, headers } = primitive.requires;
    const endpoints = primitive.endpoints;
    if (capabilities.length === 0 && endpoints.length === 0 && Object.keys(headers).length === 0) return noRequirements;
    const key = JSON.stringify([capabilities, headers, endpoints]);
    let check = checks.get(key);
    if (check === undefined) {
      check = compileRequirements(primitive, onMissingCapabilities, capabilities.length > 0 ? capabilitiesCheck(capabilities) : undefined);
      checks.set(key, check);
    }
    return check;
  };
}

type CapabilitiesCheck = (declared: Declared, memo: RequestMemo | undefined) => boolean;

function compileCapabilities(paths: readonly string[], onMissingCapabilities: MissingCapabilities, memoIndex: number): CapabilitiesCheck {
  const checks: PresenceCheck[] = paths.map(compilePresenceCheck);
  let lastDeclared: Declared | null = null;
  let lastAnswer = false;
  function test(declared: Declared): boolean {
    if (declared === lastDeclared) return lastAnswer;
    let answer = declared !== undefined || onMissingCapabilities === 'allow';
    if (declared !== undefined) {
      for (let index = 0; index < checks.length && answer; index++) answer = checks[index]!(declared);
    }
    // Only a frozen object can be trusted to give the same answer next time.
    if (declared === undefined || Object.isFrozen(declared)) {
      lastDeclared = declared;
      lastAnswer = answer;
    }
    return answer;
  }
  return function capabilitiesMet(declared, memo) {
    if (memo === undefined) return test(declared);
    const known = memo.capabilities(memoIndex);
    if (known !== undefined) return known;
    const answer = test(declared);
    memo.setCapabilities(memoIndex, answer);
    return answer;
  };
}

function compileRequirements(primitive: PrimitiveMetadata, onMissingCapabilities: MissingCapabilities, capabilitiesMet: CapabilitiesCheck | undefined): RequirementCheck {
  const capabilityPaths = primitive.requires.capabilities;
  const capabilities = capabilityPaths.map((path) => ({ path, present: compilePresenceCheck(path) }));
  const headers = Object.entries(primitive.requires.headers).map(([name, value]) => ({ name: name.toLowerCase(), value }));
  const endpoints: GlobMatcher[] = primitive.endpoints.map(compileGlob);
  if (capabilities.length === 0 && headers.length === 0 && endpoints.length === 0) return noRequirements;
  const met: RequirementCheck['met'] =
    capabilitiesMet !== undefined && headers.length === 0 && endpoints.length === 0
      ? // The common case (capability gating alone): one call.
        (context, memo) => capabilitiesMet(context.client.capabilities, memo)
      : (context, memo) => {
          if (capabilitiesMet !== undefined && !capabilitiesMet(context.client.capabilities, memo)) return false;
          for (let index = 0; index < headers.length; index++) {
            const header = headers[index]!;
            if (readRequiredHeader(context, header.name) !== header.value) return false;
          }
          if (endpoints.length === 0) return true;
          const endpoint = context.request.endpoint;
          for (let index = 0; index < endpoints.length; index++) if (endpoints[index]!(endpoint)) return true;
          return false;
        };

  return {
    isEmpty: false,
    met,
    unmet(context) {
      const declared = context.client.capabilities;
      if (capabilities.length > 0 && declared === undefined && onMissingCapabilities === 'deny') {
        return { kind: 'capabilities-undeclared', capabilities: capabilityPaths };
      }
      if (declared !== undefined) {
        const missing = capabilities.find(({ present }) => !present(declared));
        if (missing) return { kind: 'capability', capability: missing.path };
      }
      const header = headers.find(({ name, value }) => readRequiredHeader(context, name) !== value);
      if (header) return { kind: 'header', header: header.name, value: header.value };
      if (endpoints.length > 0 && !endpoints.some((matches) => matches(context.request.endpoint))) {
        return { kind: 'endpoint', endpoint: context.request.endpoint, allowed: primitive.endpoints };
      }
      return null;
    },
  };
}

/**
 * The header a requirement compares: an own property only, so the key (context-key.ts), which
 * reads it through this function, sees exactly what the check sees.
 */
export function readRequiredHeader(context: RequestContext, name: string): unknown {
  const headers = context.request.headers;
  return Object.hasOwn(headers, name) ? headers[name] : undefined;
}

/** What requirements of these primitives read: whole fields as paths, and header names (which may contain dots). */
export function requirementKeyReads(primitives: readonly PrimitiveMetadata[]): { paths: string[]; headers: string[] } {
  const paths = new Set<string>();
  const headers = new Set<string>();
  for (const primitive of primitives) {
    if (primitive.requires.capabilities.length > 0) paths.add('client.capabilities');
    for (const name of Object.keys(primitive.requires.headers)) headers.add(name.toLowerCase());
    if (primitive.endpoints.length > 0) paths.add('request.endpoint');
  }
  return { paths: [...paths], headers: [...headers] };
}

/** The context paths requirements of these primitives read (`policy.readsFor`). */
export function requirementReads(primitives: readonly PrimitiveMetadata[]): string[] {
  const { paths, headers } = requirementKeyReads(primitives);
  return [...paths, ...headers.map((name) => `request.headers.${name}`)];
}
