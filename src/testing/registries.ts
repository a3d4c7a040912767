import fc from 'fast-check';
import type { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ServerMcpServer } from '@modelcontextprotocol/server';
import type { PrimitiveAnnotation } from '../core/primitive-metadata.js';
import { annotations, type AnnotationOptions } from './metadata.js';
import { gateAdapterOption, type GateAdapter } from './registry.js';
import { sdkRegistryServer } from './sdk-registry-server.js';

/** A server's registrations as data: `createRegistryServer` turns it into a real McpServer of either SDK. */
export interface Registry {
  readonly tools: readonly RegistryTool[];
  readonly prompts: readonly RegistryPrompt[];
  readonly resources: readonly RegistryResource[];
  readonly templates: readonly RegistryTemplate[];
}

/** Where an annotation is written: the registration's `_meta['mcp-gate']` or the gate's `metadata` option. */
export type AnnotationSource = 'meta' | 'option';

/** One tool of a Registry, with its annotation and where the annotation is written. */
export interface RegistryTool {
  /** Registry key; `name__1.4.0` with `annotation.version` `1.4.0` is a version of public tool `name` (as is a plain `name` beside it). */
  readonly key: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
  /** When true the tool takes a required `text` argument, so a `{}` call fails validation. */
  readonly requiresArguments: boolean;
}

/** One prompt of a Registry; `completable` gives it an argument with completions. */
export interface RegistryPrompt {
  readonly name: string;
  readonly annotation: PrimitiveAnnotation;
  readonly completable: boolean;
}

/** One static resource of a Registry. */
export interface RegistryResource {
  readonly name: string;
  readonly uri: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
}

/** One resource template of a Registry, which may list resources and complete its variables. */
export interface RegistryTemplate {
  readonly name: string;
  readonly uriTemplate: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
  /** Whether the template lists resources (its `list` callback). */
  readonly lists: boolean;
  readonly completable: boolean;
}

/** Options of registries: annotations()' domains, plus the names and URI templates to register. */
export interface RegistryOptions extends AnnotationOptions {
  readonly toolNames?: readonly string[];
  readonly promptNames?: readonly string[];
  readonly resourceNames?: readonly string[];
  /** Template name → URI template; `docs://{name}` overlaps the resources' `docs://NAME` on purpose. */
  readonly templates?: Readonly<Record<string, string>>;
}

const defaultTemplates = { notes: 'notes://{id}', users: 'users://{id}/profile', docs: 'docs://{name}' };

/**
 * Random registries: plain and versioned tools (several versions under one public name),
 * prompts with and without completable arguments, resources, templates that list and complete
 * (one overlapping the resources' URIs), annotations in `_meta` or in the `metadata` option.
 */
export function registries(options: RegistryOptions = {}): fc.Arbitrary<Registry> {
  const annotation = annotations(options);
  const source = fc.constantFrom<AnnotationSource>('meta', 'option');
  // 'plain' registers the bare name next to its versions (a plain `search` beside `search__2.0.0`).
  const versions = fc.subarray(['plain', '1.0.0', '1.4.0', '2.0.0-beta.1', '2.0.0'], { maxLength: 3 });
  const tool = fc.record({ name: fc.constant(''), versions, annotations: fc.array(annotation, { minLength: 3, maxLength: 3 }), source, requiresArguments: fc.boolean() });
  const names = (pool: readonly string[]) => fc.subarray([...pool]);
  return fc
    .record({
      toolNames: names(options.toolNames ?? ['search', 'deploy', 'admin_users', 'summarize']),
      tools: fc.array(tool, { minLength: 4, maxLength: 4 }),
      prompts: names(options.promptNames ?? ['greet', 'review', 'secret_prompt']).chain((chosen) =>
        fc.tuple(...chosen.map((name) => fc.record({ name: fc.constant(name), annotation, completable: fc.boolean() }))),
      ),
      resources: names(options.resourceNames ?? ['readme', 'secrets', 'changelog']).chain((chosen) =>
        fc.tuple(...chosen.map((name) => fc.record({ name: fc.constant(name), uri: fc.constant(`docs://${name}`), annotation, source }))),
      ),
      templates: names(Object.keys(options.templates ?? defaultTemplates)).chain((chosen) =>
        fc.tuple(
          ...chosen.map((name) =>
            fc.record({
              name: fc.constant(name),
              uriTemplate: fc.constant((options.templates ?? defaultTemplates)[name as keyof typeof defaultTemplates]!),
              annotation,
              source,
              lists: fc.boolean(),
              completable: fc.boolean(),
            }),
          ),
        ),
      ),
    })
    .map(({ toolNames, tools, prompts, resources, templates }) => ({
      tools: toolNames.flatMap((name, index) => {
        const spec = tools[index]!;
        if (spec.versions.length === 0) return [{ key: name, annotation: spec.annotations[0]!, source: spec.source, requiresArguments: spec.requiresArguments }];
        return spec.versions.map((version, at) => ({
          key: version === 'plain' ? name : `${name}__${version}`,
          annotation: version === 'plain' ? spec.annotations[at]! : { ...spec.annotations[at]!, version },
          source: spec.source,
          requiresArguments: spec.requiresArguments,
        }));
      }),
      prompts,
      resources,
      templates,
    }));
}

/** Options of createRegistryServer and registryMetadata: which SDK's McpServer to build. */
export interface RegistryServerOptions {
  /** Which McpServer to build: `'sdk'` (@modelcontextprotocol/sdk 1.32, the default) or `'server'` (@modelcontextprotocol/server 2.4). */
  readonly adapter?: GateAdapter;
}

type GateMeta = { readonly _meta?: Record<string, unknown> };
type TextContent = { type: 'text'; text: string };

// What the registry asks of one registration, in terms both SDKs take; each SDK's side
// (sdk-registry-server.ts, server-registry-server.ts) adds its schemas and registers it.
export interface ToolRegistration {
  readonly name: string;
  readonly config: { readonly description: string } & GateMeta;
  /** Register an input schema with one required string `text`. */
  readonly requiresText: boolean;
  readonly run: () => Promise<{ content: TextContent[] }>;
}

export interface PromptRegistration {
  readonly name: string;
  readonly config: { readonly description: string } & GateMeta;
  /** Completions of the `topic` argument; without, `topic` is an optional string. */
  readonly completeTopic: (() => string[]) | undefined;
  readonly get: () => { messages: { role: 'user'; content: TextContent }[] };
}

export interface ResourceRegistration {
  readonly name: string;
  readonly uri: string;
  readonly config: { readonly mimeType: string } & GateMeta;
  readonly read: (uri: URL) => Promise<{ contents: { uri: string; text: string }[] }>;
}

export interface TemplateRegistration extends Omit<ResourceRegistration, 'uri'> {
  readonly uriTemplate: string;
  readonly callbacks: {
    list: (() => Promise<{ resources: { uri: string; name: string }[] }>) | undefined;
    complete?: Record<string, () => string[]>;
  };
}

/** One SDK's side of `createRegistryServer`: its McpServer, schemas, `completable` and `ResourceTemplate`. */
export interface RegistrySdk<Server> {
  createServer(info: { name: string; version: string }): Server;
  registerTool(server: Server, tool: ToolRegistration): void;
  registerPrompt(server: Server, prompt: PromptRegistration): void;
  registerResource(server: Server, resource: ResourceRegistration): void;
  registerTemplate(server: Server, template: TemplateRegistration): void;
}

// SDK 1.32's registerPrompt takes no `_meta`, so there a prompt's annotation can only reach the
// gate through its `metadata` option; 2.4 keeps prompt `_meta`.
const keepsPromptMeta: Readonly<Record<GateAdapter, boolean>> = { sdk: false, server: true };

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const gated = (annotation: PrimitiveAnnotation) => ({ _meta: { 'mcp-gate': annotation } });
const gateMeta = (annotation: PrimitiveAnnotation, source: AnnotationSource) => (source === 'meta' ? gated(annotation) : {});

/**
 * A real McpServer with the registry's registrations; annotations in `_meta` where the registry says so.
 * With `adapter: 'server'` it resolves to an McpServer 2.4, importing @modelcontextprotocol/server only then.
 */
export function createRegistryServer(registry: Registry, options?: { readonly adapter?: 'sdk' }): SdkMcpServer;
export function createRegistryServer(registry: Registry, options: { readonly adapter: 'server' }): Promise<ServerMcpServer>;
export function createRegistryServer(registry: Registry, options?: RegistryServerOptions): SdkMcpServer | Promise<ServerMcpServer>;
export function createRegistryServer(registry: Registry, options: RegistryServerOptions = {}): SdkMcpServer | Promise<ServerMcpServer> {
  const adapter = gateAdapterOption(options.adapter) ?? 'sdk';
  if (adapter === 'sdk') return buildRegistryServer(registry, sdkRegistryServer, adapter);
  return import('./server-registry-server.js').then(({ serverRegistryServer }) => buildRegistryServer(registry, serverRegistryServer, adapter));
}

function buildRegistryServer<Server>(registry: Registry, sdk: RegistrySdk<Server>, adapter: GateAdapter): Server {
  const server = sdk.createServer({ name: 'mcp-gate-testing-registry', version: '1.0.0' });
  for (const tool of registry.tools) {
    const config = { description: `tool ${tool.key}`, ...gateMeta(tool.annotation, tool.source) };
    sdk.registerTool(server, { name: tool.key, config, requiresText: tool.requiresArguments, run: async () => text(`${tool.key} ran`) });
  }
  for (const prompt of registry.prompts) {
    const config = { description: `prompt ${prompt.name}`, ...(keepsPromptMeta[adapter] ? gated(prompt.annotation) : {}) };
    sdk.registerPrompt(server, {
      name: prompt.name,
      config,
      completeTopic: prompt.completable ? () => ['alpha', 'beta'] : undefined,
      get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: prompt.name } }] }),
    });
  }
  for (const resource of registry.resources) {
    const config = { mimeType: 'text/plain', ...gateMeta(resource.annotation, resource.source) };
    sdk.registerResource(server, { name: resource.name, uri: resource.uri, config, read: async (uri) => ({ contents: [{ uri: uri.href, text: resource.name }] }) });
  }
  for (const template of registry.templates) {
    const variable = template.uriTemplate.slice(template.uriTemplate.indexOf('{') + 1, template.uriTemplate.indexOf('}'));
    const callbacks = {
      list: template.lists ? async () => ({ resources: [{ uri: template.uriTemplate.replace(`{${variable}}`, '1'), name: `${template.name} 1` }] }) : undefined,
      ...(template.completable ? { complete: { [variable]: () => ['1', '2'] } } : {}),
    };
    sdk.registerTemplate(server, {
      name: template.name,
      uriTemplate: template.uriTemplate,
      callbacks,
      config: { mimeType: 'text/plain', ...gateMeta(template.annotation, template.source) },
      read: async (uri) => ({ contents: [{ uri: uri.href, text: `${template.name} at ${uri.href}` }] }),
    });
  }
  return server;
}

/**
 * The gate's `metadata` option for `createRegistryServer(registry, options)`: the annotations kept
 * out of `_meta`, and on the v1 SDK every prompt's (SDK 1.32 drops prompt `_meta`).
 */
export function registryMetadata(registry: Registry, options: RegistryServerOptions = {}): Record<string, PrimitiveAnnotation> {
  const adapter = gateAdapterOption(options.adapter) ?? 'sdk';
  const metadata: Record<string, PrimitiveAnnotation> = {};
  for (const tool of registry.tools) if (tool.source === 'option') metadata[`tool:${tool.key}`] = tool.annotation;
  if (!keepsPromptMeta[adapter]) for (const prompt of registry.prompts) metadata[`prompt:${prompt.name}`] = prompt.annotation;
  for (const resource of registry.resources) if (resource.source === 'option') metadata[`resource:${resource.uri}`] = resource.annotation;
  for (const template of registry.templates) if (template.source === 'option') metadata[`template:${template.name}`] = template.annotation;
  return metadata;
}
