import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError, type PolicyIssue } from '../../../src/core/errors.js';
import { compileLogic } from '../../../src/core/logic/compile.js';

// Runs the flagd-testbed evaluator vectors (test/fixtures/flagd, see its README) through
// compileLogic: each Gherkin example builds the evaluation data as flagd does, evaluates the
// flag's targeting rule and maps the result to a variant as flagd's evaluator does.

interface Flag {
  variants: Record<string, unknown>;
  defaultVariant: string;
  targeting?: unknown;
}

interface Scenario {
  feature: string;
  name: string;
  tags: string[];
  steps: string[];
  examples: { tags: string[]; rows: Record<string, string>[] }[];
}

interface VectorCase {
  title: string;
  tags: string[];
  steps: string[];
}

const fixtures = new URL('../../fixtures/flagd/', import.meta.url);
const flags = (JSON.parse(readFileSync(new URL('testkit-flags.json', fixtures), 'utf8')) as { flags: Record<string, Flag> }).flags;

function parseFeature(file: string): Scenario[] {
  const scenarios: Scenario[] = [];
  let pendingTags: string[] = [];
  let featureTags: string[] = [];
  let scenario: Scenario | undefined;
  let table: { tags: string[]; header?: string[]; rows: Record<string, string>[] } | undefined;
  for (const rawLine of readFileSync(new URL(file, fixtures), 'utf8').split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('@')) {
      pendingTags.push(...line.split(/\s+/));
    } else if (line.startsWith('Feature:')) {
      featureTags = pendingTags;
      pendingTags = [];
    } else if (line.startsWith('Background:')) {
      scenario = undefined;
    } else if (/^Scenario( Outline)?:/.test(line)) {
      scenario = { feature: file, name: line.replace(/^[^:]*:\s*/, ''), tags: [...featureTags, ...pendingTags], steps: [], examples: [] };
      scenarios.push(scenario);
      pendingTags = [];
      table = undefined;
    } else if (line.startsWith('Examples:')) {
      table = { tags: pendingTags, rows: [] };
      scenario!.examples.push(table);
      pendingTags = [];
    } else if (line.startsWith('|')) {
      const cells = line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim());
      if (!table!.header) table!.header = cells;
      else table!.rows.push(Object.fromEntries(table!.header.map((name, index) => [name, cells[index] ?? ''])));
    } else if (scenario && /^(Given|And|When|Then|But) /.test(line)) {
      scenario.steps.push(line.replace(/^\S+ /, ''));
    }
  }
  return scenarios;
}

/** Every example of the four features, minus the legacy `@fractional-v1` bucketing tables. */
function expandCases(scenarios: Scenario[]): VectorCase[] {
  const cases: VectorCase[] = [];
  for (const scenario of scenarios) {
    if (scenario.examples.length === 0) {
      cases.push({ title: `${scenario.feature}: ${scenario.name}`, tags: scenario.tags, steps: scenario.steps });
    }
    for (const examples of scenario.examples) {
      const tags = [...scenario.tags, ...examples.tags];
      if (tags.includes('@fractional-v1')) continue;
      for (const row of examples.rows) {
        const steps = scenario.steps.map((step) => step.replace(/<([^>]+)>/g, (_, name: string) => row[name] ?? ''));
        cases.push({ title: `${scenario.feature}: ${scenario.name} ${JSON.stringify(row)}`, tags, steps });
      }
    }
  }
  return cases;
}

function typed(type: string, text: string): unknown {
  if (type === 'Integer' || type === 'Float') return Number(text);
  if (type === 'Boolean') return text === 'true';
  return text;
}

interface Expectation {
  flagKey: string;
  fallback: string;
  context: Record<string, unknown>;
  value?: string;
  reason?: string;
}

function readSteps(steps: string[]): Expectation {
  const expectation: Expectation = { flagKey: '', fallback: '', context: {} };
  for (const step of steps) {
    let match: RegExpExecArray | null;
    if (step === 'an evaluator' || step === 'the flag was evaluated with details') continue;
    if ((match = /^a \w+-flag with key "(.*)" and a fallback value "(.*)"$/.exec(step))) {
      expectation.flagKey = match[1]!;
      expectation.fallback = match[2]!;
    } else if ((match = /^a context containing a targeting key with value "(.*)"$/.exec(step))) {
      expectation.context.targetingKey = match[1];
    } else if ((match = /^a context containing a nested property with outer key "(.*)" and inner key "(.*)", with value "(.*)"$/.exec(step))) {
      expectation.context[match[1]!] = { [match[2]!]: match[3] };
    } else if ((match = /^a context containing a key "(.*)", with type "(.*)" and with value "(.*)"$/.exec(step))) {
      expectation.context[match[1]!] = typed(match[2]!, match[3]!);
    } else if ((match = /^the resolved details value should be "(.*)"$/.exec(step))) {
      expectation.value = match[1];
    } else if ((match = /^the reason should be "(.*)"$/.exec(step))) {
      expectation.reason = match[1];
    } else {
      throw new Error(`unsupported step: ${step}`);
    }
  }
  return expectation;
}

/** flagd's resolution: null → default variant; a variant name (booleans and numbers as text) → that variant. */
function evaluateFlag({ flagKey, fallback, context }: Expectation): { value: unknown; reason: string } {
  const flag = flags[flagKey]!;
  const rule = compileLogic(flag.targeting);
  const data = { ...context, $flagd: { flagKey, timestamp: Math.floor(Date.now() / 1000) } };
  const result = rule(data);
  if (result === null || result === undefined) return { value: flag.variants[flag.defaultVariant], reason: 'DEFAULT' };
  const variant = ['string', 'boolean', 'number'].includes(typeof result) ? String(result) : undefined;
  if (variant !== undefined && Object.hasOwn(flag.variants, variant)) {
    return { value: flag.variants[variant], reason: 'TARGETING_MATCH' };
  }
  return { value: fallback, reason: 'ERROR' };
}

// Deliberate deviation: these targeting rules are invalid as written (wrong argument count, an
// operator sem_ver does not have). flagd accepts them and serves the default variant on every
// evaluation; mcp-gate rejects them when the rule compiles, as it does every configuration error.
const rejectedWhenCompiled: Record<string, PolicyIssue> = {
  'starts-with-wrong-args-flag': { code: 'arity', path: 'starts_with', message: '"starts_with" takes 2 arguments, got 1' },
  'ends-with-wrong-args-flag': { code: 'arity', path: 'ends_with', message: '"ends_with" takes 2 arguments, got 1' },
  'semver-wrong-args-flag': { code: 'arity', path: 'sem_ver', message: '"sem_ver" takes 3 arguments, got 2' },
  'semver-invalid-operator-flag': {
    code: 'invalid_argument',
    path: 'sem_ver[1]',
    message: 'sem_ver operator must be one of "=", "!=", "<", "<=", ">", ">=", "^", "~", got "==="',
  },
};

const features = ['fractional.feature', 'semver.feature', 'string.feature', 'targeting.feature'];
const cases = features.flatMap((feature) => expandCases(parseFeature(feature)));

describe('flagd-testbed vectors through compileLogic', () => {
  it('runs every example of the four features (v2 fractional only)', () => {
    expect(cases.length).toBe(80);
    expect(cases.filter((vector) => vector.tags.includes('@fractional-v2')).length).toBe(21);
  });

  for (const vector of cases) {
    const expectation = readSteps(vector.steps);
    const rejection = rejectedWhenCompiled[expectation.flagKey];
    if (rejection) {
      it(`rejects when compiled (flagd serves the default): ${vector.title}`, () => {
        expect(expectation).toMatchObject({ value: 'fallback', reason: 'DEFAULT' });
        let error: unknown;
        try {
          compileLogic(flags[expectation.flagKey]!.targeting);
        } catch (thrown) {
          error = thrown;
        }
        expect(error).toBeInstanceOf(PolicyCompileError);
        expect((error as PolicyCompileError).issues).toEqual([rejection]);
      });
      continue;
    }
    it(vector.title, () => {
      expect(flags[expectation.flagKey]?.targeting, 'flag has a targeting rule').toBeDefined();
      expect(expectation.value, 'example names an expected value').toBeDefined();
      const resolved = evaluateFlag(expectation);
      expect(String(resolved.value)).toBe(expectation.value);
      if (expectation.reason !== undefined) expect(resolved.reason).toBe(expectation.reason);
    });
  }
});

// flagd behaviour the testbed does not pin, from flagd's Go evaluator (core/pkg/evaluator).
describe('flagd operators beyond the testbed', () => {
  function compileIssues(rule: unknown): PolicyIssue[] {
    try {
      compileLogic(rule);
    } catch (error) {
      if (error instanceof PolicyCompileError) return [...error.issues];
      throw error;
    }
    return [];
  }

  it('counts a null weight as 1 and yields null for a computed weight that is not an integer', () => {
    const rule = compileLogic({ fractional: ['key', ['only', { var: 'weight' }]] });
    expect(rule({ weight: null })).toBe('only');
    expect(rule({ weight: 0.5 })).toBeNull();
    expect(rule({ weight: '50' })).toBeNull();
  });

  it('yields null when the bucketing key is not a string, or is missing and there is no targeting key', () => {
    expect(compileLogic({ fractional: [{ var: 'id' }, ['a', 1]] })({ id: 5 })).toBeNull();
    const keyless = compileLogic({ fractional: [['a', 1]] });
    expect(keyless({})).toBeNull();
    expect(keyless({ targetingKey: 'user', $flagd: { flagKey: 'flag' } })).toBe('a');
  });

  it('reports literal arguments fractional can never use', () => {
    expect(compileIssues({ fractional: [5, ['a', 1]] })).toEqual([
      { code: 'invalid_argument', path: 'fractional[0]', message: 'fractional bucketing key must be a string, got a number' },
    ]);
    expect(compileIssues({ fractional: ['key'] })).toEqual([
      {
        code: 'invalid_argument',
        path: 'fractional',
        message: 'fractional needs at least one bucket [variant, weight] after the bucketing key',
      },
    ]);
    expect(compileIssues({ fractional: ['key', ['a', 0.5], [{}, 1]] })).toEqual([
      { code: 'invalid_argument', path: 'fractional[1]', message: 'a fractional weight must be an integer' },
      {
        code: 'invalid_argument',
        path: 'fractional[2]',
        message: 'a fractional variant must be a string, number, boolean or null',
      },
    ]);
    expect(compileIssues({ fractional: ['key', ['a', 2147483647], ['b', 1]] })).toEqual([
      { code: 'invalid_argument', path: 'fractional', message: 'fractional weights must sum to at most 2147483647' },
    ]);
  });

  it('reports a literal starts_with or ends_with argument that is not a string', () => {
    expect(compileIssues({ ends_with: [{ var: 'id' }, 5] })).toEqual([
      { code: 'invalid_argument', path: 'ends_with[1]', message: 'ends_with compares strings, got a number' },
    ]);
  });
});
