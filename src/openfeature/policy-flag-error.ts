import { PolicyError, type PolicyIssue } from '../core/errors.js';

/** Why a policy flag was not applied: the flag could not be evaluated, or its document is invalid. */
export type PolicyFlagProblem = 'flag_error' | 'default_value' | 'invalid_document';

/**
 * The policy document in an OpenFeature flag was not applied. Names the flag key; `issues` carries
 * the document's problem paths (`rules[0].effect`), `errorCode` the OpenFeature error code if any.
 */
export class PolicyFlagError extends PolicyError {
  override name = 'PolicyFlagError';
  readonly flagKey: string;
  readonly problem: PolicyFlagProblem;
  readonly issues: readonly PolicyIssue[];
  readonly errorCode: string | undefined;

  constructor(flagKey: string, problem: PolicyFlagProblem, issues: readonly PolicyIssue[], options: { errorCode?: string | undefined; cause?: unknown } = {}) {
    super(formatMessage(flagKey, issues), options.cause === undefined ? undefined : { cause: options.cause });
    this.flagKey = flagKey;
    this.problem = problem;
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
    this.errorCode = options.errorCode;
  }
}

function formatMessage(flagKey: string, issues: readonly PolicyIssue[]): string {
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  const lines = issues.map((issue) => (issue.path ? `  ${issue.path}: ${issue.message}` : `  ${issue.message}`));
  return [`policy flag "${flagKey}" not applied (${count}):`, ...lines].join('\n');
}
