/**
 * One problem found in a rule, a policy document or metadata. `path` is a dot path
 * (`rules[2].when.and[1]`). `severity` is absent on errors (issues before warnings existed had
 * none); a warning is a likely mistake that does not stop compilation unless `strict` is set.
 */
export interface PolicyIssue {
  code: PolicyIssueCode;
  path: string;
  message: string;
  severity?: PolicyIssueSeverity | undefined;
}

/** An `error` stops compilation; a `warning` is a likely mistake reported in `Policy.warnings`. */
export type PolicyIssueSeverity = 'error' | 'warning';

/** What kind of problem a PolicyIssue reports, for tools that match on it rather than on the message. */
export type PolicyIssueCode =
  | 'unknown_operator'
  | 'arity'
  | 'forbidden_path'
  | 'invalid_argument'
  | 'limit_exceeded'
  | 'invalid_document'
  | 'duplicate_rule_id'
  | 'invalid_metadata'
  | 'unknown_field'
  | 'header_case'
  | 'unknown_capability'
  | 'undeclared_flag'
  | 'dynamic_flag_path'
  | 'unused_flag';

/** Base class of every error mcp-gate throws. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

/** A rule or policy document was rejected; `issues` lists every problem found, not just the first. */
export class PolicyCompileError extends PolicyError {
  override name = 'PolicyCompileError';
  readonly issues: readonly PolicyIssue[];

  constructor(issues: readonly PolicyIssue[], subject = 'policy') {
    super(formatIssues(subject, issues));
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
  }
}

/** A compiled rule failed on its data: a limit was hit (string too long, too many iterations) or an operator threw. */
export class PolicyEvaluationError extends PolicyError {
  override name = 'PolicyEvaluationError';
  readonly code: 'limit_exceeded' | 'evaluation_failed';

  constructor(message: string, code: 'limit_exceeded' | 'evaluation_failed' = 'limit_exceeded', cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
  }
}

/** An option passed to an mcp-gate function is invalid; the message names the option. */
export class PolicyOptionError extends PolicyError {
  override name = 'PolicyOptionError';
}

/**
 * A request context could not be built: part of the input could not be read (a getter or a
 * proxy trap threw) or holds more values than a context copies. `path` names the part
 * (`auth.claims.org`). Refusing the request is the fail-closed answer: dropping an unreadable
 * claim could drop the very value a deny rule tests.
 */
export class RequestContextError extends PolicyError {
  override name = 'RequestContextError';
  readonly path: string;

  constructor(path: string, problem: string, cause?: unknown) {
    super(`invalid request context: ${path} ${problem}`, cause === undefined ? undefined : { cause });
    this.path = path;
  }
}

/** Metadata attached to a primitive is invalid; the message names the primitive and the field. */
export class MetadataError extends PolicyError {
  override name = 'MetadataError';
  readonly issues: readonly PolicyIssue[];

  constructor(primitive: string, issues: readonly PolicyIssue[]) {
    super(formatIssues(`metadata of ${primitive}`, issues));
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
  }
}

function formatIssues(subject: string, issues: readonly PolicyIssue[]): string {
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  const lines = issues.map((issue) => (issue.path ? `  ${issue.path}: ${issue.message}` : `  ${issue.message}`));
  return [`invalid ${subject} (${count}):`, ...lines].join('\n');
}

/**
 * Joins a base dot path and a key or index the way zod's `toDotPath` does. A key longer than 64
 * characters is abbreviated, so one hostile key cannot be copied into every issue below it.
 */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const shown = key.length > 64 ? `${key.slice(0, 32)}…(${key.length} characters)` : key;
  const plain = /^[A-Za-z_$][\w$]*$/.test(shown);
  if (plain) return base ? `${base}.${shown}` : shown;
  return `${base}[${JSON.stringify(shown)}]`;
}
