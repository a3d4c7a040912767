// How long `mcp-gate check` takes: every shipped policy against the demo manifest and against a
// manifest built from the names it targets, then a 200-rule policy over 1,000 primitives. Before
// timing, every refutation's counterexample is confirmed with the policy's own explain (as the
// property test does), so a fast wrong answer cannot pass. Targets: under 1 s per shipped
// policy, under 10 s for the large one. Figures measured while other processes load the machine
// are noisy: the load average is printed beside them. Run: npm run bench:check
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPolicy, type PolicyCheck } from '../src/core/analysis/check-policy.js';
import { diffPolicies, type PolicyDiff } from '../src/core/analysis/diff-policies.js';
import { compileInvariants, type Invariant } from '../src/core/analysis/invariants.js';
import { createRequestContext } from '../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveMetadata } from '../src/core/primitive-metadata.js';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { parseManifest } from '../src/cli/manifest.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const resultsFile = path.join(root, 'bench/results/check.json');

const invariants: Invariant[] = [
  {
    id: 'admin-only-on-admin',
    never: {
      and: [
        { var: 'visible' },
        { glob: ['admin_*', { var: 'primitive.name' }] },
        { '!': { or: [{ glob: ['/mcp/admin', { var: 'request.endpoint' }] }, { glob: ['/mcp/admin/**', { var: 'request.endpoint' }] }] } },
      ],
    },
  },
  { id: 'sampling-required', never: { and: [{ var: 'visible' }, { in: ['sampling', { var: 'primitive.requires.capabilities' }] }, { '!': { has: 'sampling' } }] } },
  { id: 'deploy-needs-scope', never: { and: [{ var: 'visible' }, { glob: ['deploy_*', { var: 'primitive.name' }] }, { '!': { in: ['deploy', { var: 'auth.scopes' }] } }] } },
];

/** One primitive per name, group and tag the policy's rules target (globs get a matching name). */
function manifestFromPolicy(document: { rules?: Array<{ appliesTo?: { kinds?: string[]; names?: string[]; groups?: string[]; tags?: string[] } }> }): PrimitiveMetadata[] {
  const primitives: PrimitiveMetadata[] = [];
  for (const [index, rule] of (document.rules ?? []).entries()) {
    const kind = (rule.appliesTo?.kinds?.[0] ?? 'tool') as 'tool';
    for (const name of rule.appliesTo?.names ?? []) if (!name.includes('://')) primitives.push(createPrimitiveMetadata(kind, name.replace(/\*+/g, 'x')));
    for (const group of rule.appliesTo?.groups ?? []) primitives.push(createPrimitiveMetadata(kind, `${group}_${index}`, { groups: [group], version: '2.0.0' }));
    for (const tag of rule.appliesTo?.tags ?? []) primitives.push(createPrimitiveMetadata(kind, `${tag}_${index}`, { tags: [tag] }));
  }
  primitives.push(createPrimitiveMetadata('tool', 'plain', { version: '1.0.0' }));
  return primitives;
}

/** A deterministic 200-rule policy: each rule targets a group and tests one or two context paths. */
function largePolicy(ruleCount: number): unknown {
  const conditions = (index: number): unknown => {
    switch (index % 6) {
      case 0:
        return { '!==': [{ var: `request.headers.x-team-${index % 7}` }, `team-${index % 5}`] };
      case 1:
        return { '!': { in: [`scope-${index % 4}`, { var: 'auth.scopes' }] } };
      case 2:
        return { '!': { glob: [`/mcp/area-${index % 9}/**`, { var: 'request.endpoint' }] } };
      case 3:
        return { '!': { in: [{ var: 'client.name' }, [`client-${index % 6}`, `client-${(index + 1) % 6}`]] } };
      case 4:
        return { and: [{ '!': { has: index % 2 === 0 ? 'sampling' : 'roots' } }, { '!==': [{ var: 'request.headers.x-canary' }, '1'] }] };
      default:
        return { '!': { sem_ver: [{ var: 'client.version' }, '>=', `1.${index % 4}.0`] } };
    }
  };
  return {
    version: 1,
    default: 'allow',
    rules: Array.from({ length: ruleCount }, (_, index) => ({
      id: `rule-${index}`,
      effect: index % 10 === 9 ? 'allow' : 'deny',
      appliesTo: { groups: [`group-${index % 50}`] },
      when: conditions(index),
    })),
  };
}

/**
 * A review-sized edit of the large policy: five conditions get another literal, two rules
 * change effect, two are dropped and one is added.
 */
function editedPolicy(document: unknown): unknown {
  const { rules, ...rest } = document as { rules: Array<{ id: string; effect: string; appliesTo: unknown; when: unknown }> };
  const edited = rules.map((rule, index) => {
    if ([3, 40, 77, 120, 181].includes(index))
      return {
        ...rule,
        when: JSON.parse(
          JSON.stringify(rule.when)
            .replace(/(team|scope|area|client)-(\d)/, (_, word: string, digit: string) => `${word}-${(Number(digit) + 1) % 4}`)
            .replace(/"1\.(\d)\.0"/, '"2.$1.0"'),
        ),
      };
    if (index === 15 || index === 96) return { ...rule, effect: rule.effect === 'deny' ? 'allow' : 'deny' };
    return rule;
  });
  const kept = edited.filter((_, index) => index !== 60 && index !== 143);
  kept.push({ id: 'rule-new', effect: 'deny', appliesTo: { groups: ['group-7'] }, when: { '!': { in: ['scope-9', { var: 'auth.scopes' }] } } });
  return { ...rest, rules: kept };
}

/** Every class is real: both policies, on its context, differ by exactly its gains and losses among its primitives. */
function confirmDiff(oldDocument: unknown, newDocument: unknown, result: PolicyDiff): void {
  const before = compilePolicy(oldDocument);
  const after = compilePolicy(newDocument);
  for (const group of result.groups) {
    for (const item of group.classes) {
      const context = createRequestContext(item.context);
      for (const primitive of item.gains) if (before.evaluate(context, primitive) || !after.evaluate(context, primitive)) throw new Error('a gain is not confirmed');
      for (const primitive of item.loses) if (!before.evaluate(context, primitive) || after.evaluate(context, primitive)) throw new Error('a loss is not confirmed');
    }
  }
}

function largeManifest(count: number): PrimitiveMetadata[] {
  return Array.from({ length: count }, (_, index) =>
    createPrimitiveMetadata(index % 5 === 0 ? 'prompt' : 'tool', `${index % 13 === 0 ? 'admin_' : index % 17 === 0 ? 'deploy_' : 'tool_'}${index}`, {
      groups: [`group-${index % 50}`, ...(index % 3 === 0 ? [`group-${(index * 7) % 50}`] : [])],
      ...(index % 11 === 0 ? { requires: { capabilities: ['sampling'] } } : {}),
      ...(index % 13 === 0 ? { endpoints: ['/mcp/admin/**'] } : {}),
    }),
  );
}

/** Every counterexample is real: explain decides it the same way and the invariant breaks on it. */
function confirm(document: unknown, result: PolicyCheck, all: readonly Invariant[]): void {
  const policy = compilePolicy(document);
  const compiled = compileInvariants(all);
  for (const verdict of result.invariants) {
    if (verdict.status !== 'refuted') continue;
    const { primitive, context, decision } = verdict.counterexample!;
    const actual = policy.explain(createRequestContext(context), primitive);
    const invariant = compiled.find((candidate) => candidate.id === verdict.id)!;
    if (actual.allowed !== decision.allowed || !invariant.violates(createRequestContext(context), primitive, actual)) {
      throw new Error(`counterexample of ${verdict.id} is not confirmed by explain`);
    }
  }
}

interface Row {
  readonly name: string;
  readonly rules: number;
  readonly primitives: number;
  readonly ms: number;
  /** CPU time of this process (under load, wall time includes waiting for a core). */
  readonly cpuMs: number;
  readonly targetMs: number;
  readonly verdicts: string;
}

function measure(name: string, document: unknown, primitives: readonly PrimitiveMetadata[], targetMs: number): Row {
  // One untimed run warms the compiler and checks the answers.
  const checked = checkPolicy(document, primitives, { invariants });
  confirm(document, checked, invariants);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    const usage = process.cpuUsage();
    checkPolicy(document, primitives, { invariants });
    const used = process.cpuUsage(usage);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const ms = times.sort((a, b) => a - b)[1]!;
  const cpuMs = cpu.sort((a, b) => a - b)[1]!;
  const verdicts = (['proven', 'refuted', 'unknown'] as const)
    .map((status) => `${checked.invariants.filter((verdict) => verdict.status === status).length} ${status}`)
    .join(', ');
  const rules = (document as { rules: unknown[] }).rules.length;
  return { name, rules, primitives: primitives.length, ms, cpuMs, targetMs, verdicts: `${verdicts}; ${checked.lint.length} lint` };
}

const demoManifest = parseManifest(JSON.parse(readFileSync(path.join(root, 'policies/demo.manifest.json'), 'utf8')), 'demo.manifest.json');
const shipped = readdirSync(path.join(root, 'policies'))
  .filter((file) => file.endsWith('.json') && !file.endsWith('.cases.json') && !file.endsWith('.manifest.json') && file !== 'policy.schema.json')
  .sort();

const rows: Row[] = [];
for (const file of shipped) {
  const document = JSON.parse(readFileSync(path.join(root, 'policies', file), 'utf8'));
  rows.push(measure(`${file} × demo.manifest.json`, document, demoManifest, 1000));
  rows.push(measure(`${file} × its names`, document, manifestFromPolicy(document), 1000));
}
rows.push(measure('200 rules × 1,000 primitives', largePolicy(200), largeManifest(1000), 10_000));

/** diff --exhaustive of the large policy and its edit, interleaved with check of the old one (the baseline the ratio is to). */
function measureDiff(name: string, oldDocument: unknown, newDocument: unknown, primitives: readonly PrimitiveMetadata[], targetMs: number): Row {
  const diffed = diffPolicies(oldDocument, newDocument, primitives);
  confirmDiff(oldDocument, newDocument, diffed);
  const times: number[] = [];
  const cpu: number[] = [];
  const baseline: number[] = [];
  for (let run = 0; run < 3; run++) {
    let start = performance.now();
    checkPolicy(oldDocument, primitives);
    baseline.push(performance.now() - start);
    start = performance.now();
    const usage = process.cpuUsage();
    diffPolicies(oldDocument, newDocument, primitives);
    const used = process.cpuUsage(usage);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const ms = times.sort((a, b) => a - b)[1]!;
  const checkMs = baseline.sort((a, b) => a - b)[1]!;
  const classes = diffed.groups.reduce((sum, group) => sum + group.classes.length, 0);
  const verdicts = `${classes} classes in ${diffed.groups.length} groups, ${diffed.exact ? 'exact' : 'inexact'}; ${(ms / checkMs).toFixed(2)}× check of the old policy (${checkMs.toFixed(0)} ms)`;
  return { name, rules: (newDocument as { rules: unknown[] }).rules.length, primitives: primitives.length, ms, cpuMs: cpu.sort((a, b) => a - b)[1]!, targetMs, verdicts };
}

const large = largePolicy(200);
rows.push(measureDiff('diff --exhaustive, 200 rules edited × 1,000', large, editedPolicy(large), largeManifest(1000), 10_000));

const load = loadavg()
  .map((value) => value.toFixed(1))
  .join(' ');
console.log(`mcp-gate check (median of 3 runs; ${cpus().length} cores, load average ${load})`);
const width = Math.max(...rows.map((row) => row.name.length));
for (const row of rows) {
  const verdict = row.ms <= row.targetMs ? 'ok' : 'OVER';
  console.log(
    `  ${row.name.padEnd(width)}  ${row.rules.toString().padStart(3)} rules  ${row.primitives.toString().padStart(4)} primitives  ${row.ms.toFixed(0).padStart(6)} ms (cpu ${row.cpuMs.toFixed(0).padStart(5)} ms)  (target ${row.targetMs} ms: ${verdict})  ${row.verdicts}`,
  );
}
mkdirSync(path.dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify({ load: loadavg(), cores: cpus().length, rows }, null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), resultsFile)}`);
