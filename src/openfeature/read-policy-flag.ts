import type { Client, EvaluationContext, JsonValue } from '@openfeature/server-sdk';
import { PolicyCompileError, type PolicyIssue } from '../core/errors.js';
import { compilePolicy, type CompilePolicyOptions } from '../core/policy/compile-policy.js';
import type { Policy } from '../core/policy/types.js';
import { PolicyFlagError } from './policy-flag-error.js';

/** Options of readPolicyFlag and watchPolicyFlag. */
export interface ReadPolicyFlagOptions {
  /** Evaluation context for the flag (a policy flag usually needs none). */
  context?: EvaluationContext;
  /** Passed to compilePolicy: custom operators, limits, `strict`. */
  compile?: CompilePolicyOptions;
}

/**
 * Evaluates the object flag `flagKey` once and compiles its value into a Policy. Throws a
 * PolicyFlagError (never returns a default) when the flag errors, is missing or is not a valid policy.
 */
export async function readPolicyFlag(client: Client, flagKey: string, options: ReadPolicyFlagOptions = {}): Promise<Policy> {
  // A fresh object per read: the SDK hands it back on every error path, and identity tells us so.
  const fallback: JsonValue = {};
  const details = await client.getObjectDetails(flagKey, fallback, options.context);
  if (details.reason === 'ERROR' || details.errorCode !== undefined) {
    const message = `flag evaluation failed (${details.errorCode ?? 'ERROR'})${details.errorMessage ? `: ${details.errorMessage}` : ''}`;
    throw new PolicyFlagError(flagKey, 'flag_error', [issue('', message)], { errorCode: details.errorCode });
  }
  if (details.value === fallback) {
    throw new PolicyFlagError(flagKey, 'default_value', [issue('', `the provider returned the caller's default value (reason ${details.reason ?? 'none'}), not a policy`)]);
  }
  try {
    return compilePolicy(details.value, options.compile);
  } catch (error) {
    if (error instanceof PolicyCompileError) throw new PolicyFlagError(flagKey, 'invalid_document', error.issues, { cause: error });
    throw error;
  }
}

function issue(path: string, message: string): PolicyIssue {
  return { code: 'invalid_document', path, message };
}
