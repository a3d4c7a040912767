// The classes of strings that a set of string tests (equality, prefix, suffix, substring, glob,
// non-empty) can tell apart, each with its shortest member. Every test is a small automaton over
// characters; a breadth-first walk of their product from the empty string reaches every
// combination of answers some string gives, and reaches it first by a shortest such string.
// Characters that appear in no literal (and are not `/`, which globs treat apart) behave alike
// in every test, so one stands for all of them: the walk is exact over all strings.

import { tokenizeGlob } from '../logic/glob-matcher.js';

export type StringTest = { readonly op: 'eq' | 'prefix' | 'suffix' | 'contains' | 'glob'; readonly value: string } | { readonly op: 'nonempty' };

interface Machine {
  readonly start: string;
  step(state: string, char: string): string;
  accepts(state: string): boolean;
}

/** Longest-border table (KMP) for suffix and substring tests. */
function borders(literal: string): number[] {
  const table = new Array<number>(literal.length + 1).fill(0);
  table[0] = -1;
  let k = -1;
  for (let index = 0; index < literal.length; index++) {
    while (k >= 0 && literal[k] !== literal[index]) k = table[k]!;
    k++;
    table[index + 1] = k;
  }
  return table;
}

function kmpStep(literal: string, table: readonly number[], matched: number, char: string): number {
  let k = matched === literal.length ? table[matched]! : matched;
  while (k >= 0 && literal[k] !== char) k = table[k]!;
  return k + 1;
}

function globMachine(pattern: string): Machine {
  const tokens = tokenizeGlob(pattern);
  const close = (states: boolean[]) => {
    for (let state = 0; state < tokens.length; state++) if (states[state] && tokens[state]!.kind !== 'literal' && tokens[state]!.kind !== 'one') states[state + 1] = true;
    return states;
  };
  const encode = (states: boolean[]) => states.map((on) => (on ? '1' : '0')).join('');
  const start = close(
    tokens
      .map(() => false)
      .concat([false])
      .map((_, index) => index === 0),
  );
  return {
    start: encode(start),
    step(state, char) {
      const next = new Array<boolean>(tokens.length + 1).fill(false);
      for (let index = 0; index < tokens.length; index++) {
        if (state[index] !== '1') continue;
        const token = tokens[index]!;
        if (token.kind === 'literal') {
          if (token.char === char) next[index + 1] = true;
        } else if (token.kind === 'one') {
          if (char !== '/') next[index + 1] = true;
        } else if (token.kind === 'globstar' || char !== '/') next[index] = true;
      }
      return encode(close(next));
    },
    accepts: (state) => state[tokens.length] === '1',
  };
}

function machineFor(test: StringTest): Machine {
  switch (test.op) {
    case 'nonempty':
      return { start: '0', step: () => '1', accepts: (state) => state === '1' };
    case 'eq':
    case 'prefix': {
      const literal = test.value;
      const full = String(literal.length);
      return {
        start: '0',
        step(state, char) {
          if (state === 'x') return 'x';
          const matched = Number(state);
          if (matched === literal.length) return test.op === 'prefix' ? full : 'x';
          return literal[matched] === char ? String(matched + 1) : 'x';
        },
        accepts: (state) => state === full,
      };
    }
    case 'suffix':
    case 'contains': {
      const literal = test.value;
      const table = borders(literal);
      const full = String(literal.length);
      return {
        start: literal.length === 0 ? full : '0',
        step(state, char) {
          if (test.op === 'contains' && state === full) return full;
          if (literal.length === 0) return full;
          return String(kmpStep(literal, table, Number(state), char));
        },
        accepts: (state) => state === full,
      };
    }
    case 'glob':
      return globMachine(test.value);
  }
}

export interface StringClasses {
  /** One shortest string per combination of answers, in the order found (shortest first). */
  readonly witnesses: readonly string[];
  /** False when the walk stopped at its state bound: the witnesses may miss classes. */
  readonly complete: boolean;
}

const maxStates = 20_000;

/** A character no literal uses: it stands for every such character. */
function freshCharacter(used: ReadonlySet<string>): string {
  for (const char of 'xyzqjkwvuabcdefghilmnoprst0123456789') if (!used.has(char)) return char;
  for (let code = 0x100; ; code++) if (!used.has(String.fromCharCode(code))) return String.fromCharCode(code);
}

/** Every class of strings the tests tell apart, each with a shortest member. */
export function stringClasses(tests: readonly StringTest[]): StringClasses {
  const machines = tests.map(machineFor);
  const used = new Set<string>(['/']);
  for (const test of tests) {
    if (test.op === 'nonempty') continue;
    // In a glob, `*` and `?` match characters rather than stand for themselves.
    for (const char of test.value.split('')) if (test.op !== 'glob' || (char !== '*' && char !== '?')) used.add(char);
  }
  const alphabet = [freshCharacter(used), ...[...used].sort()];
  const start = machines.map((machine) => machine.start);
  const seen = new Set<string>([start.join('\u0000')]);
  const answers = new Map<string, string>();
  let queue: Array<{ states: string[]; text: string }> = [{ states: start, text: '' }];
  while (queue.length > 0) {
    const next: typeof queue = [];
    for (const { states, text } of queue) {
      const answer = machines.map((machine, index) => (machine.accepts(states[index]!) ? '1' : '0')).join('');
      if (!answers.has(answer)) answers.set(answer, text);
      for (const char of alphabet) {
        const stepped = machines.map((machine, index) => machine.step(states[index]!, char));
        const key = stepped.join('\u0000');
        if (seen.has(key)) continue;
        if (seen.size >= maxStates) return { witnesses: [...answers.values()], complete: false };
        seen.add(key);
        next.push({ states: stepped, text: text + char });
      }
    }
    queue = next;
  }
  return { witnesses: [...answers.values()], complete: true };
}
