import { compileLogic } from '../logic/compile.js';
import { builtinOperators } from '../logic/operators.js';
import { isWholeDataPath, splitPath } from '../logic/path.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { affix, comparison, dynamic, glob, markOpaque, membership, missing, order, presence, semver, type AtomScope, type Walked } from './atom-operators.js';
import { addAtom, contextRoots, emptyAtoms, pathKindOf, type ConditionAtoms } from './condition-atoms.js';

// The walk that finds a condition's atoms (condition-atoms.ts): each node is a literal, a raw
// context read looking for the operator that tests it, or a value built from atoms; the
// operators' handlers are in atom-operators.ts.

const primitiveRoots = new Set(['primitive', 'tool']);

export interface AtomOptions {
  /** Roots that stand for the decision being checked (invariants: `visible`, `decision`). */
  readonly outputRoots?: ReadonlySet<string>;
}

/** The atoms of one condition for one primitive (`where` names the condition in reasons, e.g. `rules[2].when`). */
export function collectAtoms(condition: unknown, primitive: PrimitiveMetadata, where: string, options: AtomOptions = {}): ConditionAtoms {
  const found = emptyAtoms();
  const outputRoots = options.outputRoots ?? new Set<string>();
  const constData = { primitive, tool: primitive };

  function unmodelled(reason: string): Walked {
    const text = `${where}: ${reason}`;
    if (!found.unmodelled.includes(text)) found.unmodelled.push(text);
    return dynamic;
  }

  /** The value of a literal subtree (primitive fields included); undefined when it cannot be evaluated. */
  function constantOf(node: unknown): { value: unknown } | undefined {
    if (node === null || typeof node !== 'object') return { value: node };
    try {
      return { value: compileLogic(node)(constData) };
    } catch {
      return undefined;
    }
  }

  /** A raw read meets truthiness (`!`, `and`, `or`, `if`, the root): an atom. */
  function truthOf(walked: Walked): Walked {
    if (walked.kind !== 'read') return walked;
    if (walked.pathKind === 'capabilities') addAtom(found, walked.path, 'capabilities', { op: 'truthy' });
    else addAtom(found, walked.path, walked.pathKind, { op: 'truthy' });
    return dynamic;
  }

  /** A raw read in a position where its value (not just its truthiness) flows on. */
  function valueOf(walked: Walked, operator: string): Walked {
    if (walked.kind !== 'read') return walked;
    found.opaque.set(walked.path, walked.pathKind);
    return unmodelled(`the value of ${walked.path} flows into "${operator}", which the analysis does not partition`);
  }

  function readVar(args: readonly unknown[]): Walked {
    const [pathArg, fallback] = args;
    if (fallback !== undefined) {
      const walkedFallback = walk(fallback, false);
      if (walkedFallback.kind !== 'const') return unmodelled('a var default that reads the context');
    }
    if (typeof pathArg !== 'string' && typeof pathArg !== 'number') {
      if (isWholeDataPath(pathArg)) return unmodelled('a var of the whole data');
      return unmodelled('a computed var path');
    }
    if (isWholeDataPath(pathArg)) return unmodelled('a var of the whole data');
    const segments = splitPath(pathArg);
    const root = segments[0]!;
    if (primitiveRoots.has(root) || outputRoots.has(root)) {
      if (outputRoots.has(root)) {
        found.outputs.add(root);
        return dynamic;
      }
      return { kind: 'const', node: { var: args.length > 1 ? args : pathArg } };
    }
    // A feature flag is resolved per request from outside the context the analysis enumerates.
    if (root === 'flags') return unmodelled(`reads feature flag ${segments.join('.')}, which the analysis does not partition`);
    if (!contextRoots.has(root)) return { kind: 'const', node: null };
    const path = segments.join('.');
    const kind = pathKindOf(path);
    if (kind === undefined) {
      if (path.startsWith('client.capabilities.'))
        return unmodelled(`reads the value of ${path} (test presence with {"has": "${path.slice('client.capabilities.'.length)}"})`);
      return unmodelled(`reads ${path}, which the analysis does not partition`);
    }
    // A default replaces only an absent value, which is a class of its own: the read stays exact.
    return { kind: 'read', path, pathKind: kind };
  }

  const scope: AtomScope = { found, unmodelled, constantOf, walk };

  function walk(node: unknown, truth: boolean): Walked {
    if (Array.isArray(node)) {
      const items = node.map((item) => walk(item, false));
      for (const item of items) if (item.kind === 'read') return valueOf(item, 'an array literal');
      return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
    }
    if (node === null || typeof node !== 'object') return { kind: 'const', node };
    const keys = Object.keys(node);
    if (keys.length !== 1) return { kind: 'const', node };
    const name = keys[0]!;
    const raw = (node as Record<string, unknown>)[name];
    const args: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
    const walked = (): Walked[] => args.map((arg) => walk(arg, false));
    switch (name) {
      case 'var': {
        const read = readVar(args);
        return truth ? truthOf(read) : read;
      }
      case '!':
      case '!!': {
        const inner = truthOf(walk(args[0], true));
        return inner.kind === 'const' ? { kind: 'const', node } : dynamic;
      }
      case 'and':
      case 'or': {
        // They return an operand: in a truth position only its truthiness counts.
        const items = args.map((arg) => walk(arg, truth)).map((item) => (truth ? truthOf(item) : valueOf(item, name)));
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
      case 'if':
      case '?:': {
        const items = args.map((arg, index) => {
          const isCondition = index % 2 === 0 && index < args.length - 1;
          const item = walk(arg, isCondition || truth);
          return isCondition || truth ? truthOf(item) : valueOf(item, name);
        });
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
      case '==':
      case '===':
      case '!=':
      case '!==': {
        const [left, right] = walked() as [Walked, Walked];
        return comparison(scope, name, left, right, args[0], args[1]);
      }
      case 'in': {
        const [needle, haystack] = walked() as [Walked, Walked];
        return membership(scope, needle, haystack, args[0], args[1]);
      }
      case 'starts_with':
      case 'ends_with': {
        const [value, affixWalked] = walked() as [Walked, Walked];
        return affix(scope, name, value, affixWalked, args[0], args[1]);
      }
      case 'glob': {
        const [pattern, value] = walked() as [Walked, Walked];
        return glob(scope, pattern, value, args[0], args[1]);
      }
      case 'sem_ver':
        return semver(scope, args);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return order(scope, name, args);
      case 'has':
      case 'has_all':
        return presence(scope, name, args);
      case 'missing':
      case 'missing_some':
        return missing(scope, name, args);
      case 'fractional':
        markOpaque(scope, args[0] !== undefined && !Array.isArray(args[0]) ? args[0] : { var: 'auth.subject' }, args[0] === undefined || Array.isArray(args[0]));
        return unmodelled('fractional buckets callers by a hash, which the analysis does not model');
      default: {
        const operator = builtinOperators.get(name);
        if (operator === undefined) return unmodelled(`custom operator "${name}"`);
        const itemArgs = operator.itemArgs ?? [];
        // Bodies of array operators read the current item, never the context.
        const items = args.map((arg, index) => (itemArgs.includes(index) ? ({ kind: 'const', node: arg } as Walked) : walk(arg, false)));
        for (const item of items) if (item.kind === 'read') return valueOf(item, name);
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
    }
  }

  truthOf(walk(condition, true));
  return found;
}
