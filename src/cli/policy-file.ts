import { PolicyCompileError, type PolicyIssue } from '../core/errors.js';
import { compilePolicy } from '../core/policy/compile-policy.js';
import type { Policy } from '../core/policy/types.js';
import { recognizeFileKind } from './file-kind.js';
import { displayPath, formatIssues, InputError, readJson, resolvePath, type CliIo } from './io.js';

export interface LoadedPolicy {
  readonly policy: Policy;
  /** The file as messages name it. */
  readonly name: string;
  readonly ruleCount: number;
  /** Likely mistakes that did not stop compilation (none with `strict`). */
  readonly warnings: readonly PolicyIssue[];
}

export interface LoadPolicyOptions {
  /** Warnings are errors. */
  readonly strict?: boolean;
}

/** An InputError that keeps its issues, for `validate --json`; its message is the usual `file: path: message` lines. */
export class IssuesInputError extends InputError {
  readonly issues: readonly { readonly path: string; readonly message: string; readonly code?: string | undefined }[];

  constructor(name: string, issues: IssuesInputError['issues']) {
    super(formatIssues(name, issues));
    this.issues = issues;
  }
}

/** Reads, validates and compiles a policy file; every issue becomes one `file: path: message` line. */
export async function loadPolicy(io: CliIo, path: string, options: LoadPolicyOptions = {}): Promise<LoadedPolicy> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const document = await readJson(io, absolutePath);
  const mistaken = recognizeOtherFile(document);
  if (mistaken) throw new InputError(`${name}: ${mistaken}`);
  return checkPolicyDocument(document, name, options);
}

/** Validates and compiles a parsed policy document; `name` is the file as messages name it. */
export function checkPolicyDocument(document: unknown, name: string, options: LoadPolicyOptions = {}): LoadedPolicy {
  try {
    const policy = compilePolicy(document, { source: name, strict: options.strict === true });
    const rules = (document as { rules?: unknown }).rules;
    return { policy, name, ruleCount: Array.isArray(rules) ? rules.length : 0, warnings: policy.warnings };
  } catch (error) {
    if (error instanceof PolicyCompileError) throw new IssuesInputError(name, error.issues);
    throw error;
  }
}

/** One `file: path: warning: message` line per warning, compiler style. */
export function formatWarnings(name: string, warnings: readonly PolicyIssue[]): string {
  return warnings.map((issue) => (issue.path ? `${name}: ${issue.path}: warning: ${issue.message}` : `${name}: warning: ${issue.message}`)).join('\n');
}

/** A cases file or a manifest where a policy belongs: name it instead of listing schema noise. */
function recognizeOtherFile(document: unknown): string | undefined {
  const kind = recognizeFileKind(document);
  if (kind === 'cases') return 'this is a cases file, not a policy (run it with "mcp-gate test")';
  if (kind === 'manifest') return 'this is a manifest, not a policy (pass it as --manifest)';
  if (kind === 'json-schema') return 'this is a JSON Schema, not a policy';
  return undefined;
}
