import { createRequestContext, type RequestContextInput } from '../../../src/core/context.js';
import { createPrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import type { PrimitiveAnnotation, PrimitiveKind } from '../../../src/core/primitive-metadata.js';

export function context(input: RequestContextInput = {}) {
  return createRequestContext({ request: { method: 'tools/list', endpoint: '/mcp', ...input.request }, client: input.client, auth: input.auth });
}

export function tool(name: string, annotation: PrimitiveAnnotation = {}) {
  return createPrimitiveMetadata('tool', name, annotation);
}

export function primitive(kind: PrimitiveKind, name: string, annotation: PrimitiveAnnotation = {}, uri?: string) {
  return createPrimitiveMetadata(kind, name, annotation, kind === 'resourceTemplate' ? { uriTemplate: uri } : { uri });
}
