import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, InputError, UsageError } from '../io.js';
import { formatWarnings, loadPolicy } from '../policy-file.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check policy files and list every problem',
  usage: 'mcp-gate validate [--strict] <policy.json…>',
  description: [
    'Reads each policy file, checks it against the policy schema and compiles every rule.',
    'Prints "FILE: valid" for a good file; otherwise one line per problem, "FILE: PATH: MESSAGE".',
    'Likely mistakes (an upper-case header name, an unknown client capability) are printed as',
    '"FILE: PATH: warning: MESSAGE" and do not fail the file, unless --strict is given.',
    'Exit code: 0 when every file is valid, 1 otherwise.',
  ].join('\n'),
  options: {
    strict: { type: 'boolean', description: 'treat warnings as errors' },
  },
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate validate: no policy files given; see "mcp-gate validate --help"');
    let failed = false;
    // Sequential on purpose: output stays in command-line order.
    for (const path of args.positionals) {
      try {
        const { name, ruleCount, policy, warnings } = await loadPolicy(io, path, { strict: args.flag('strict') });
        writeLines(io.stderr, formatWarnings(name, warnings));
        const warned = warnings.length === 0 ? '' : warnings.length === 1 ? ', 1 warning' : `, ${warnings.length} warnings`;
        writeLines(io.stdout, `${name}: valid (${ruleCount === 1 ? '1 rule' : `${ruleCount} rules`}, revision ${policy.revision}${warned})`);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        writeLines(io.stderr, error.message);
        failed = true;
      }
    }
    return failed ? exitCodes.failed : exitCodes.ok;
  },
};
