import type { PrimitiveMetadata } from '../../core/primitive-metadata.js';
import { casePrimitive, describeDecision, describeExpectation, loadCasesFile, runCase, type CaseResult, type Expectation, type PrimitiveSource } from '../cases.js';
import type { Decision } from '../../core/policy/types.js';
import type { ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { displayPath, exitCodes, InputError, readJson, resolvePath, UsageError, type CliIo } from '../io.js';
import { loadPrimitives, primitiveSourceOptionSpecs } from '../manifest.js';
import { describeUpstream, readUpstreamSpec, upstreamSourceUsage } from '../upstream-source.js';
import { checkDocumentInvariantsOver, describeVerdict } from './check.js';
import { loadPolicy, type LoadedPolicy } from '../policy-file.js';

export const testCommand: Command = {
  name: 'test',
  summary: 'run policy cases (context + primitive → expected decision)',
  usage: `mcp-gate test <cases.json…> [--manifest FILE | --server MODULE | ${upstreamSourceUsage}] [--overlay FILE] [--verbose] [--json]`,
  description: [
    'Runs each cases file against the policy its "policy" field names (relative to the cases file).',
    'With a source of primitives (--manifest, --server, or a live upstream annotated by its _meta and',
    "--overlay), each case's primitive names one of the source's by kind and name (a resource by uri) and",
    'takes its annotation from there; annotation fields the case writes must agree with the source.',
    'Prints a line per failing case with the expected and the actual decision, then',
    '"N passed, M failed". With --json, prints one JSON document instead:',
    '{"files": [{"file", "policy", "cases": [{"name", "passed", "expected", "actual"}], "error"?}], "passed", "failed"}.',
    'Exit code: 0 when every case passes, 1 otherwise.',
  ].join('\n'),
  options: {
    manifest: { type: 'string', value: 'FILE', description: 'the primitives the cases name, as JSON {"primitives": […]}' },
    ...primitiveSourceOptionSpecs,
    verbose: { type: 'boolean', description: 'print passing cases too' },
    json: { type: 'boolean', description: 'print every case and its result as JSON' },
  },
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate test: no cases files given; see "mcp-gate test --help"');
    const policies = new Map<string, Promise<LoadedPolicy>>();
    let passed = 0;
    let failed = 0;
    let broken = 0;
    const json = args.flag('json');
    const files: FileJson[] = [];
    const source = await loadSource(io, args);
    for (const path of args.positionals) {
      const absolutePath = resolvePath(io, path);
      const report: FileJson = { file: displayPath(io, absolutePath), policy: null, cases: [] };
      files.push(report);
      try {
        const casesFile = await loadCasesFile(io, path);
        report.policy = displayPath(io, casesFile.policyPath);
        let loading = policies.get(casesFile.policyPath);
        if (!loading) policies.set(casesFile.policyPath, (loading = loadPolicy(io, casesFile.policyPath)));
        const { policy } = await loading.catch((error: unknown) => {
          // Say which cases file needed the policy: the policy's own lines name only the policy.
          if (error instanceof InputError) throw new InputError(`${casesFile.name}: cannot run: its policy has problems\n${error.message}`);
          throw error;
        });
        for (const policyCase of casesFile.cases) {
          const result = runCase(policy, policyCase, source);
          if (result.passed) passed++;
          else failed++;
          if (json) report.cases.push(caseJson(result));
          else if (!result.passed || args.flag('verbose')) writeLines(io.stdout, describeResult(casesFile.name, result));
        }
        // The policy's own invariants, over every context, for the primitives the cases name.
        const verdicts = checkDocumentInvariantsOver(
          await readJson(io, casesFile.policyPath),
          casesFile.cases.map((policyCase) => casePrimitive(policyCase, source)).filter((primitive): primitive is PrimitiveMetadata => !('problem' in primitive)),
          displayPath(io, casesFile.policyPath),
        );
        for (const verdict of verdicts) {
          if (verdict.status === 'proven') passed++;
          else failed++;
          if (json) (report.invariants ??= []).push({ id: verdict.id, status: verdict.status, counterexample: verdict.counterexample, reasons: verdict.reasons });
          else if (verdict.status !== 'proven' || args.flag('verbose'))
            writeLines(io.stdout, `${verdict.status === 'proven' ? 'PASS' : 'FAIL'} ${casesFile.name}: ${describeVerdict(verdict)}`);
        }
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        if (json) report.error = error.message;
        else writeLines(io.stderr, error.message);
        broken++;
      }
    }
    if (json) {
      writeLines(io.stdout, JSON.stringify({ files, passed, failed }, null, 2));
      return failed > 0 || broken > 0 ? exitCodes.failed : exitCodes.ok;
    }
    const unrun = broken === 0 ? '' : `, ${broken === 1 ? '1 file' : `${broken} files`} could not be run`;
    writeLines(io.stdout, `${passed} passed, ${failed} failed${unrun}`);
    return failed > 0 || broken > 0 ? exitCodes.failed : exitCodes.ok;
  },
};

const sourceOptions = ['manifest', 'server', 'export', 'upstream-cmd', 'upstream-url', 'overlay'] as const;

/** The primitives the cases name, when a source is given: `--manifest`, `--server` or an upstream, as for `explain`. */
async function loadSource(io: CliIo, args: ParsedArgs): Promise<PrimitiveSource | undefined> {
  if (sourceOptions.every((name) => args.string(name) === undefined) && args.strings('upstream-header').length === 0) return undefined;
  const primitives = await loadPrimitives(io, args, 'mcp-gate test');
  const upstream = readUpstreamSpec(args, 'mcp-gate test');
  const file = args.string('manifest') ?? args.string('server');
  const name = upstream !== undefined ? `the upstream ${describeUpstream(upstream)}` : displayPath(io, resolvePath(io, file!));
  return { name, primitives };
}

function describeResult(file: string, { policyCase, passed, actual }: CaseResult): string {
  if (passed) return `PASS ${file}: ${policyCase.name}`;
  const got = 'problem' in actual ? `could not evaluate: ${actual.problem}` : `got ${describeDecision(actual)}`;
  return `FAIL ${file}: ${policyCase.name}: expected ${describeExpectation(policyCase.expect)}, ${got}`;
}

/** One cases file as `test --json` prints it; `policy` is null when the cases file itself could not be read. */
interface FileJson {
  file: string;
  policy: string | null;
  cases: CaseJson[];
  /** Why the file could not be run: the lines the text mode prints on stderr. */
  error?: string;
  /** The policy's own invariants, checked over every context for the cases' primitives (when it has any). */
  invariants?: Array<{ id: string; status: string; counterexample?: unknown; reasons: readonly string[] }>;
}

interface CaseJson {
  readonly name: string;
  readonly passed: boolean;
  readonly expected: Expectation;
  /** The decision as `explain --json` would give it, or `{"problem"}` when the case could not be evaluated. */
  readonly actual: Decision | { readonly problem: string };
}

function caseJson({ policyCase, passed, actual }: CaseResult): CaseJson {
  return { name: policyCase.name, passed, expected: policyCase.expect, actual };
}
