import fc from 'fast-check';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PrimitiveAnnotation } from '../core/context.js';
import { annotations, type AnnotationOptions } from './metadata.js';

/** A server's registrations as data: `createRegistryServer` turns it into a real McpServer. */
export interface Registry {
  readonly tools: readonly RegistryTool[];
  readonly prompts: readonly RegistryPrompt[];
  readonly resources: readonly RegistryResource[];
  readonly templates: readonly RegistryTemplate[];
}

/** Where an annotation is written: the registration's `_meta['mcp-gate']` or the gate's `metadata` option. */
export type AnnotationSource = 'meta' | 'option';

export interface RegistryTool {
  /** Registry key; `name__1.4.0` with `annotation.version` `1.4.0` is a version of public tool `name` (as is a plain `name` beside it). */
  readonly key: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
  /** When true the tool takes a required `text` argument, so a `{}` call fails validation. */
  readonly requiresArguments: boolean;
}

export interface RegistryPrompt {
  readonly name: string;
  readonly annotation: PrimitiveAnnotation;
  readonly completable: boolean;
}

export interface RegistryResource {
  readonly name: string;
  readonly uri: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
}

export interface RegistryTemplate {
  readonly name: string;
  readonly uriTemplate: string;
  readonly annotation: PrimitiveAnnotation;
  readonly source: AnnotationSource;
  /** Whether the template lists resources (its `list` callback). */
  readonly lists: boolean;
  readonly completable: boolean;
}

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
            fc.record({ name: fc.constant(name), uriTemplate: fc.constant((options.templates ?? defaultTemplates)[name as keyof typeof defaultTemplates]!), annotation, source, lists: fc.boolean(), completable: fc.boolean() }),
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

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const gateMeta = (annotation: PrimitiveAnnotation, source: AnnotationSource) => (source === 'meta' ? { _meta: { 'mcp-gate': annotation } } : {});

/** A real McpServer with the registry's registrations; annotations in `_meta` where the registry says so. */
export function createRegistryServer(registry: Registry): McpServer {
  const server = new McpServer({ name: 'mcp-gate-testing-registry', version: '1.0.0' });
  for (const tool of registry.tools) {
    const inputSchema = tool.requiresArguments ? { text: z.string() } : undefined;
    server.registerTool(tool.key, { description: `tool ${tool.key}`, inputSchema, ...gateMeta(tool.annotation, tool.source) }, async () => text(`${tool.key} ran`));
  }
  for (const prompt of registry.prompts) {
    const argsSchema = { topic: prompt.completable ? completable(z.string(), () => ['alpha', 'beta']) : z.string().optional() };
    server.registerPrompt(prompt.name, { description: `prompt ${prompt.name}`, argsSchema }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: prompt.name } }],
    }));
  }
  for (const resource of registry.resources) {
    server.registerResource(resource.name, resource.uri, { mimeType: 'text/plain', ...gateMeta(resource.annotation, resource.source) }, async (uri) => ({
      contents: [{ uri: uri.href, text: resource.name }],
    }));
  }
  for (const template of registry.templates) {
    const variable = template.uriTemplate.slice(template.uriTemplate.indexOf('{') + 1, template.uriTemplate.indexOf('}'));
    const resourceTemplate = new ResourceTemplate(template.uriTemplate, {
      list: template.lists ? async () => ({ resources: [{ uri: template.uriTemplate.replace(`{${variable}}`, '1'), name: `${template.name} 1` }] }) : undefined,
      ...(template.completable ? { complete: { [variable]: () => ['1', '2'] } } : {}),
    });
    server.registerResource(template.name, resourceTemplate, { mimeType: 'text/plain', ...gateMeta(template.annotation, template.source) }, async (uri) => ({
      contents: [{ uri: uri.href, text: `${template.name} at ${uri.href}` }],
    }));
  }
  return server;
}

/** The gate's `metadata` option for the registry: annotations kept out of `_meta`, and every prompt's (SDK 1.32 drops prompt `_meta`). */
export function registryMetadata(registry: Registry): Record<string, PrimitiveAnnotation> {
  const metadata: Record<string, PrimitiveAnnotation> = {};
  for (const tool of registry.tools) if (tool.source === 'option') metadata[`tool:${tool.key}`] = tool.annotation;
  for (const prompt of registry.prompts) metadata[`prompt:${prompt.name}`] = prompt.annotation;
  for (const resource of registry.resources) if (resource.source === 'option') metadata[`resource:${resource.uri}`] = resource.annotation;
  for (const template of registry.templates) if (template.source === 'option') metadata[`template:${template.name}`] = template.annotation;
  return metadata;
}
