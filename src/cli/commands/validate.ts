import { isDeepStrictEqual } from 'node:util';
import { createPolicyJsonSchema } from '../../core/policy/schema.js';
import { parseCasesFile } from '../cases.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { expectedKinds, recognizeFileKind } from '../file-kind.js';
import { displayPath, exitCodes, InputError, readJson, resolvePath, UsageError, type CliIo } from '../io.js';
import { parseManifest } from '../manifest.js';
import { checkPolicyDocument, formatWarnings, IssuesInputError } from '../policy-file.js';
import { checkDocumentInvariants } from './check.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check policy files (and cases files, manifests, the policy schema); list every problem',
  usage: 'mcp-gate validate [--strict] [--json] <file.json…>',
  description: [
    'Checks each file as what it is: a policy (against the policy schema, compiling every rule),',
    'a cases file (as "mcp-gate test" reads it), a manifest (as "mcp-gate manifest" writes it) or',
    'the policy JSON Schema (which must be the one this mcp-gate generates).',
    'Prints one line per good file, "FILE: valid …" saying what it was checked as; otherwise one',
    'line per problem, "FILE: PATH: MESSAGE". A policy that reads feature flags lists their keys.',
    'Likely mistakes in a policy (an upper-case header name, an unknown client capability) are',
    'printed as "FILE: PATH: warning: MESSAGE" and do not fail the file, unless --strict is given.',
    'With --json, prints one JSON document instead: {"files": [{"file", "kind", "valid", "issues", …}], "valid"},',
    'and nothing on stderr for problems in the files.',
    'Exit code: 0 when every file is valid, 1 otherwise.',
  ].join('\n'),
  options: {
    strict: { type: 'boolean', description: 'treat warnings as errors' },
    json: { type: 'boolean', description: 'print the results as one JSON document' },
  },
  async execute(args, io) {
    if (args.positionals.length === 0) throw new UsageError('mcp-gate validate: no files given; see "mcp-gate validate --help"');
    const json = args.flag('json');
    const reports: FileReport[] = [];
    // Sequential on purpose: output stays in command-line order.
    for (const path of args.positionals) {
      const report = await validateFile(io, path, args.flag('strict'));
      reports.push(report);
      if (json) continue;
      if (report.warningLines) writeLines(io.stderr, report.warningLines);
      writeLines(report.valid ? io.stdout : io.stderr, report.line);
    }
    const valid = reports.every((report) => report.valid);
    if (json) writeLines(io.stdout, JSON.stringify({ files: reports.map((report) => report.json), valid }, null, 2));
    return valid ? exitCodes.ok : exitCodes.failed;
  },
};

type FileKind = NonNullable<ReturnType<typeof recognizeFileKind>>;

/** One problem as `validate --json` prints it. */
interface JsonIssue {
  readonly path: string;
  readonly message: string;
  readonly code?: string | undefined;
  readonly severity: 'error' | 'warning';
}

interface FileJson {
  readonly file: string;
  readonly kind: FileKind | null;
  readonly valid: boolean;
  readonly revision?: string;
  readonly rules?: number;
  /** The flag keys the policy reads (`flags.<key>`), when it reads any. */
  readonly flags?: readonly string[];
  readonly cases?: number;
  readonly primitives?: number;
  readonly issues: readonly JsonIssue[];
}

interface FileReport {
  readonly valid: boolean;
  /** The `FILE: valid …` line, or the problem lines (for stderr). */
  readonly line: string;
  /** Warning lines for stderr, printed before `line`. */
  readonly warningLines?: string;
  readonly json: FileJson;
}

/** Checks one file as the kind it is; input problems become an invalid report, anything else is thrown. */
async function validateFile(io: CliIo, path: string, strict: boolean): Promise<FileReport> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  let kind: FileKind | null = null;
  try {
    const document = await readJson(io, absolutePath);
    kind = recognizeFileKind(document) ?? null;
    return checkDocument(io, document, kind, absolutePath, name, strict);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // Structured where the checker kept its issues; otherwise the message, as one issue of the whole file.
    const issues: JsonIssue[] =
      error instanceof IssuesInputError
        ? error.issues.map((issue) => ({ path: issue.path, message: issue.message, code: issue.code, severity: 'error' }))
        : [{ path: '', message: stripName(error.message, name), severity: 'error' }];
    return { valid: false, line: error.message, json: { file: name, kind, valid: false, issues } };
  }
}

function checkDocument(io: CliIo, document: unknown, kind: FileKind | null, absolutePath: string, name: string, strict: boolean): FileReport {
  const valid = (line: string, details: Omit<FileJson, 'file' | 'kind' | 'valid' | 'issues'>, issues: JsonIssue[] = [], warningLines?: string): FileReport => ({
    valid: true,
    line,
    ...(warningLines ? { warningLines } : {}),
    json: { file: name, kind, valid: true, ...details, issues },
  });
  switch (kind) {
    case 'policy': {
      const { ruleCount, policy, warnings } = checkPolicyDocument(document, name, { strict });
      checkDocumentInvariants(document, name);
      const warned = warnings.length === 0 ? '' : warnings.length === 1 ? ', 1 warning' : `, ${warnings.length} warnings`;
      const issues = warnings.map((issue): JsonIssue => ({ path: issue.path, message: issue.message, code: issue.code, severity: 'warning' }));
      const flags = Object.keys(policy.flags ?? {});
      const flagList = flags.length === 0 ? '' : `, ${flags.length === 1 ? 'flag' : 'flags'} ${flags.join(', ')}`;
      const line = `${name}: valid (${count(ruleCount, 'rule')}${flagList}, revision ${policy.revision}${warned})`;
      return valid(line, { revision: policy.revision, rules: ruleCount, ...(flags.length === 0 ? {} : { flags }) }, issues, formatWarnings(name, warnings));
    }
    case 'cases': {
      const cases = parseCasesFile(document, absolutePath, name);
      return valid(`${name}: valid cases file (${count(cases.cases.length, 'case')} for ${displayPath(io, cases.policyPath)})`, { cases: cases.cases.length });
    }
    case 'manifest': {
      const primitives = parseManifest(document, name).length;
      return valid(`${name}: valid manifest (${count(primitives, 'primitive')})`, { primitives });
    }
    case 'json-schema':
      // Editors check policies against this file, so a stale copy misleads them.
      if (!isDeepStrictEqual(document, createPolicyJsonSchema())) {
        throw new InputError(`${name}: a JSON Schema, but not the policy schema of this mcp-gate (an out-of-date copy, or another schema)`);
      }
      return valid(`${name}: valid JSON Schema (the policy schema of this mcp-gate)`, {});
    case null:
      throw new InputError(`${name}: not a file mcp-gate knows: ${expectedKinds}`);
  }
}

/** `FILE: message` lines without the leading `FILE: ` (or `FILE:` before a line:column), since the JSON names the file. */
function stripName(message: string, name: string): string {
  return message
    .split('\n')
    .map((line) => (line.startsWith(`${name}: `) ? line.slice(name.length + 2) : line.startsWith(`${name}:`) ? line.slice(name.length + 1) : line))
    .join('\n');
}

function count(n: number, noun: string): string {
  return n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
}
