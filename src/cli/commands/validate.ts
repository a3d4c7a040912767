import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, InputError, UsageError } from '../io.js';
import { loadPolicy } from '../policy-file.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check policy files and list every problem',
  usage: 'mcp-gate validate <policy.json…>',
  description: [
    'Reads each policy file, checks it against the policy schema and compiles every rule.',
    'Prints "FILE: valid" for a good file; otherwise one line per problem, "FILE: PATH: MESSAGE".',
    'Exit code: 0 when every file is valid, 1 otherwise.',
  ].join('\n'),
  options: {},
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate validate: no policy files given; see "mcp-gate validate --help"');
    let failed = false;
    // Sequential on purpose: output stays in command-line order.
    for (const path of args.positionals) {
      try {
        const { name, ruleCount, policy } = await loadPolicy(io, path);
        writeLines(io.stdout, `${name}: valid (${ruleCount === 1 ? '1 rule' : `${ruleCount} rules`}, revision ${policy.revision})`);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        writeLines(io.stderr, error.message);
        failed = true;
      }
    }
    return failed ? exitCodes.failed : exitCodes.ok;
  },
};
