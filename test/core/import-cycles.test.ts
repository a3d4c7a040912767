import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// src/core's modules form a tree of layers (logic below policy, the internal types below both):
// an import cycle means a type or a helper sits in the wrong file, and makes the order in which
// modules initialise depend on which one a user happens to import first. Type-only imports
// count too: they are how internal types drift into the files that use them.

const root = new URL('../..', import.meta.url).pathname;
const coreDirectory = join(root, 'src/core');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Specifiers of `import … from`, `export … from`, side-effect imports and `import()`. */
function specifiersOf(text: string): string[] {
  const patterns = [/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

/** Each file's relative imports, resolved to files (`./x.js` is `./x.ts` in the source tree). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiersOf(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (!existsSync(target)) throw new Error(`${relative(root, file)} imports ${specifier}, which is no file of the source tree`);
        return target;
      });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * One cycle per strongly connected component of more than one module (or a module importing
 * itself), each as the path `a → b → … → a`, shortest through the component's first module.
 */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative enough for a source tree (recursion depth = import depth).
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  function connect(node: string): void {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components
    .filter((component) => component.length > 1 || (graph.get(component[0]!) ?? []).includes(component[0]!))
    .map((component) => shortestCycle(graph, [...component].sort()[0]!, new Set(component)));
}

/** The shortest path from `start` back to itself inside `members` (breadth first). */
function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, start: string, members: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (cameFrom.has(next) || next === start) continue;
      cameFrom.set(next, node);
      queue.push(next);
    }
  }
  return [start]; // unreachable for a strongly connected component
}

describe('findCycles', () => {
  it('finds each cycle once, as a path back to its first module, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(findCycles(graph)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['e', 'e'],
    ]);
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });
});

describe('src/core imports', () => {
  const files = sourceFiles(coreDirectory);
  const graph = importGraph(files);

  it('form no cycle (type-only imports included)', () => {
    const cycles = findCycles(graph).map((cycle) => cycle.map((file) => relative(coreDirectory, file)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('are scanned for every file (the check cannot silently cover nothing)', () => {
    expect(files.length).toBeGreaterThan(30);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(files.length);
  });
});
