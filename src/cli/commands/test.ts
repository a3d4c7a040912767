import { describeDecision, describeExpectation, loadCasesFile, runCase, type CaseResult } from '../cases.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, InputError, UsageError } from '../io.js';
import { loadPolicy, type LoadedPolicy } from '../policy-file.js';

export const testCommand: Command = {
  name: 'test',
  summary: 'run policy cases (context + primitive → expected decision)',
  usage: 'mcp-gate test <cases.json…> [--verbose]',
  description: [
    'Runs each cases file against the policy its "policy" field names (relative to the cases file).',
    'Prints a line per failing case with the expected and the actual decision, then',
    '"N passed, M failed". Exit code: 0 when every case passes, 1 otherwise.',
  ].join('\n'),
  options: { verbose: { type: 'boolean', description: 'print passing cases too' } },
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate test: no cases files given; see "mcp-gate test --help"');
    const policies = new Map<string, Promise<LoadedPolicy>>();
    let passed = 0;
    let failed = 0;
    let broken = 0;
    for (const path of args.positionals) {
      try {
        const casesFile = await loadCasesFile(io, path);
        let loading = policies.get(casesFile.policyPath);
        if (!loading) policies.set(casesFile.policyPath, (loading = loadPolicy(io, casesFile.policyPath)));
        const { policy } = await loading.catch((error: unknown) => {
          // Say which cases file needed the policy: the policy's own lines name only the policy.
          if (error instanceof InputError) throw new InputError(`${casesFile.name}: cannot run: its policy has problems\n${error.message}`);
          throw error;
        });
        for (const policyCase of casesFile.cases) {
          const result = runCase(policy, policyCase);
          if (result.passed) passed++;
          else failed++;
          if (!result.passed || args.flag('verbose')) writeLines(io.stdout, describeResult(casesFile.name, result));
        }
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        writeLines(io.stderr, error.message);
        broken++;
      }
    }
    const unrun = broken === 0 ? '' : `, ${broken === 1 ? '1 file' : `${broken} files`} could not be run`;
    writeLines(io.stdout, `${passed} passed, ${failed} failed${unrun}`);
    return failed > 0 || broken > 0 ? exitCodes.failed : exitCodes.ok;
  },
};

function describeResult(file: string, { policyCase, passed, actual }: CaseResult): string {
  if (passed) return `PASS ${file}: ${policyCase.name}`;
  const got = 'problem' in actual ? `could not evaluate: ${actual.problem}` : `got ${describeDecision(actual)}`;
  return `FAIL ${file}: ${policyCase.name}: expected ${describeExpectation(policyCase.expect)}, ${got}`;
}
