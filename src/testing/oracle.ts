import type { RequestContext } from '../core/context.js';
import { createPrimitiveMetadata, primitiveAnnotationSchema, type PrimitiveAnnotation } from '../core/primitive-metadata.js';
import type { Policy } from '../core/policy/types.js';
import { toRequestContext, transmittedContext, type Caller } from './callers.js';
import { modernTransmission } from './modern-requests.js';
import type { GateAdapter, RegisteredPrimitive } from './registry.js';
import { v1Sdk } from './v1-sdk.js';

/** What one caller's lists must hold, by the policy alone (computed without the gate). */
export interface ExpectedView {
  readonly tools: readonly string[];
  readonly prompts: readonly string[];
  /** Static resources only; resources listed by templates follow their template. */
  readonly resources: readonly string[];
  readonly templates: readonly string[];
}

/** Options of expectedView: the gate's metadata option, version separator and adapter, as the gate under test has them. */
export interface OracleOptions {
  /** The gate's `metadata` option (`tool:NAME`, `prompt:NAME`, `resource:URI`, `template:NAME`). */
  readonly metadata?: Readonly<Record<string, PrimitiveAnnotation>> | undefined;
  readonly versionSeparator?: string | undefined;
  /** The gate the view is for (default `'sdk'`): `'server'` reads each request's `_meta` envelope and HTTP headers. */
  readonly adapter?: GateAdapter | undefined;
}

const optionPrefix = { tool: 'tool', prompt: 'prompt', resource: 'resource', resourceTemplate: 'template' } as const;

/** The capabilities a v1 server sees after the SDK parsed `initialize` (it normalizes some shapes); a v2 envelope arrives as declared. */
export function capabilitiesSeenByServer(caller: Caller): Record<string, unknown> | undefined {
  const parsed = v1Sdk('capabilitiesSeenByServer').types.ClientCapabilitiesSchema.safeParse(caller.client.capabilities);
  return parsed.success ? (parsed.data as Record<string, unknown>) : undefined;
}

/**
 * Evaluates the policy for every registration, as the gate should: annotations from `_meta`
 * overridden field by field by the `metadata` option, versioned tools (`name__1.2.0`) resolved to
 * their public name (listed when any version is visible), registration order kept.
 */
export function expectedView(policy: Policy, primitives: readonly RegisteredPrimitive[], caller: Caller, options: OracleOptions = {}): ExpectedView {
  const separator = options.versionSeparator ?? '__';
  const servedContext =
    options.adapter === 'server'
      ? (method: string) => transmittedContext(caller, method, caller.client.capabilities, modernTransmission(caller, method))
      : (method: string) => toRequestContext(caller, method, capabilitiesSeenByServer(caller));
  const contexts = new Map<string, RequestContext>();
  const contextFor = (method: string) => contexts.get(method) ?? contexts.set(method, servedContext(method)).get(method)!;
  const visible = (primitive: RegisteredPrimitive, method: string, name = primitive.name): boolean => {
    const annotation = annotationOf(primitive, options.metadata);
    const location = { uri: primitive.uri, uriTemplate: primitive.uriTemplate?.toString() };
    return policy.evaluate(contextFor(method), createPrimitiveMetadata(primitive.kind, name, annotation, location));
  };
  const byKind = (kind: RegisteredPrimitive['kind']) => primitives.filter((primitive) => primitive.kind === kind);

  // A public name is listed when any of its versions is visible (which one is the gate's choice).
  const toolGroups = new Map<string, RegisteredPrimitive[]>();
  for (const tool of byKind('tool')) {
    const version = annotationOf(tool, options.metadata).version;
    const suffix = `${separator}${version}`;
    const versioned = version !== undefined && tool.key.endsWith(suffix) && tool.key.length > suffix.length;
    const publicName = versioned ? tool.key.slice(0, -suffix.length) : tool.key;
    toolGroups.set(publicName, [...(toolGroups.get(publicName) ?? []), tool]);
  }
  const tools = [...toolGroups].filter(([publicName, candidates]) => candidates.some((tool) => visible(tool, 'tools/list', publicName))).map(([name]) => name);
  return {
    tools,
    prompts: byKind('prompt')
      .filter((prompt) => visible(prompt, 'prompts/list'))
      .map((prompt) => prompt.key),
    resources: byKind('resource')
      .filter((resource) => visible(resource, 'resources/list'))
      .map((resource) => resource.key),
    templates: byKind('resourceTemplate')
      .filter((template) => visible(template, 'resources/templates/list'))
      .map((template) => template.key),
  };
}

function annotationOf(primitive: RegisteredPrimitive, metadata: OracleOptions['metadata']): PrimitiveAnnotation {
  const raw = primitive.meta !== null && typeof primitive.meta === 'object' ? (primitive.meta as Record<string, unknown>)['mcp-gate'] : undefined;
  const fromMeta = raw === undefined ? {} : primitiveAnnotationSchema.parse(raw);
  return { ...fromMeta, ...metadata?.[`${optionPrefix[primitive.kind]}:${primitive.key}`] };
}
