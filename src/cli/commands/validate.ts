import { isDeepStrictEqual } from 'node:util';
import { createPolicyJsonSchema } from '../../core/policy/schema.js';
import { parseCasesFile } from '../cases.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { expectedKinds, recognizeFileKind } from '../file-kind.js';
import { displayPath, exitCodes, InputError, readJson, resolvePath, UsageError, type CliIo } from '../io.js';
import { parseManifest } from '../manifest.js';
import { checkPolicyDocument, formatWarnings } from '../policy-file.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check policy files (and cases files, manifests, the policy schema); list every problem',
  usage: 'mcp-gate validate [--strict] <file.json…>',
  description: [
    'Checks each file as what it is: a policy (against the policy schema, compiling every rule),',
    'a cases file (as "mcp-gate test" reads it), a manifest (as "mcp-gate manifest" writes it) or',
    'the policy JSON Schema (which must be the one this mcp-gate generates).',
    'Prints one line per good file, "FILE: valid …" saying what it was checked as; otherwise one',
    'line per problem, "FILE: PATH: MESSAGE".',
    'Likely mistakes in a policy (an upper-case header name, an unknown client capability) are',
    'printed as "FILE: PATH: warning: MESSAGE" and do not fail the file, unless --strict is given.',
    'Exit code: 0 when every file is valid, 1 otherwise.',
  ].join('\n'),
  options: {
    strict: { type: 'boolean', description: 'treat warnings as errors' },
  },
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate validate: no files given; see "mcp-gate validate --help"');
    let failed = false;
    // Sequential on purpose: output stays in command-line order.
    for (const path of args.positionals) {
      try {
        writeLines(io.stdout, await validateFile(io, path, args.flag('strict')));
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        writeLines(io.stderr, error.message);
        failed = true;
      }
    }
    return failed ? exitCodes.failed : exitCodes.ok;
  },
};

/** Checks one file as the kind it is; returns its `FILE: valid …` line or throws an InputError. */
async function validateFile(io: CliIo, path: string, strict: boolean): Promise<string> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const document = await readJson(io, absolutePath);
  switch (recognizeFileKind(document)) {
    case 'policy': {
      const { ruleCount, policy, warnings } = checkPolicyDocument(document, name, { strict });
      writeLines(io.stderr, formatWarnings(name, warnings));
      const warned = warnings.length === 0 ? '' : warnings.length === 1 ? ', 1 warning' : `, ${warnings.length} warnings`;
      return `${name}: valid (${count(ruleCount, 'rule')}, revision ${policy.revision}${warned})`;
    }
    case 'cases': {
      const cases = parseCasesFile(document, absolutePath, name);
      return `${name}: valid cases file (${count(cases.cases.length, 'case')} for ${displayPath(io, cases.policyPath)})`;
    }
    case 'manifest':
      return `${name}: valid manifest (${count(parseManifest(document, name).length, 'primitive')})`;
    case 'json-schema':
      // Editors check policies against this file, so a stale copy misleads them.
      if (!isDeepStrictEqual(document, createPolicyJsonSchema())) {
        throw new InputError(`${name}: a JSON Schema, but not the policy schema of this mcp-gate (an out-of-date copy, or another schema)`);
      }
      return `${name}: valid JSON Schema (the policy schema of this mcp-gate)`;
    case undefined:
      throw new InputError(`${name}: not a file mcp-gate knows: ${expectedKinds}`);
  }
}

function count(n: number, noun: string): string {
  return n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
}
