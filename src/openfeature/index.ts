// mcp-gate/openfeature: policies from an OpenFeature object flag. Depends only on
// @openfeature/server-sdk (an optional peer); bring your own provider (flagd, in-memory, …).
export { PolicyFlagError, type PolicyFlagProblem } from './policy-flag-error.js';
export { readPolicyFlag, type ReadPolicyFlagOptions } from './read-policy-flag.js';
export { watchPolicyFlag, type PolicyFlagWatch, type PolicyTarget, type WatchPolicyFlagOptions } from './watch-policy-flag.js';
