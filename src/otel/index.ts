// mcp-gate/otel: the gate's decisions as OpenTelemetry spans, events and metrics. Depends only on
// @opentelemetry/api (an optional peer); bring your own SDK, or `mcp-gate serve --otel`.
export { evaluationEventName, hiddenStatusCode, providerName, type DecisionVariant, type FlagResultReason } from './attributes.js';
export { instrumentationScope, otelDecisions, type OtelDecisionsOption, type OtelDecisionsOptions } from './otel-decisions.js';
