import type { PrimitiveAnnotation } from '../core/context.js';
import { MetadataError } from '../core/errors.js';
import { parseAnnotation } from './metadata.js';

/**
 * Parses registrations' annotations, caching by content and never by object identity: a server
 * may change `_meta['mcp-gate']` in place and call `update()`, and the gate must then see the
 * new content (issue 11, item 2). Re-validating every annotation on each catalog rebuild would
 * cost about 6–12 µs per registration (zod); the content key (JSON) costs about 0.5 µs.
 *
 * Only annotations that are plain JSON data get a key, so the key says everything the schema
 * reads; anything else (functions, class instances, `undefined` values, non-finite numbers,
 * non-enumerable fields) is parsed every time. Errors are never cached. Entries not read by the latest build are dropped.
 */
export class AnnotationParser {
  #previousBuild = new Map<string, PrimitiveAnnotation>();
  #currentBuild = new Map<string, PrimitiveAnnotation>();

  /** Starts a catalog build; what the previous build parsed stays available to it. */
  beginBuild(): void {
    this.#previousBuild = this.#currentBuild;
    this.#currentBuild = new Map();
  }

  /** Parses one annotation; throws MetadataError naming the primitive and every bad field. */
  parse(raw: unknown, primitive: string, basePath: string): PrimitiveAnnotation {
    const key = contentKey(raw);
    if (key === undefined) return parseReadable(raw, primitive, basePath);
    let annotation = this.#currentBuild.get(key) ?? this.#previousBuild.get(key);
    annotation ??= parseReadable(raw, primitive, basePath);
    this.#currentBuild.set(key, annotation);
    return annotation;
  }
}

/** parseAnnotation, with a getter that throws turned into a MetadataError, so the entry is hidden rather than the request failing. */
function parseReadable(raw: unknown, primitive: string, basePath: string): PrimitiveAnnotation {
  try {
    return parseAnnotation(raw, primitive, basePath);
  } catch (error) {
    if (error instanceof MetadataError) throw error;
    throw new MetadataError(primitive, [{ code: 'invalid_metadata', path: basePath, message: 'cannot be read: reading it threw' }]);
  }
}

/** JSON of a value made only of plain objects, arrays, strings, finite numbers, booleans and null; else undefined. */
export function contentKey(value: unknown): string | undefined {
  let plain = true;
  try {
    const key = JSON.stringify(value, function checkPlain(this: Record<string, unknown>, name: string) {
      // `this[name]` is the value before any toJSON, which is what the schema reads.
      const raw: unknown = this[name];
      if (!isPlainJson(raw)) plain = false;
      return plain ? raw : undefined;
    });
    return plain ? key : undefined;
  } catch {
    // A cycle or a throwing getter: no key; the schema decides on the value itself.
    return undefined;
  }
}

function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      const prototype: unknown = Object.getPrototypeOf(value);
      if (Array.isArray(value)) return prototype === Array.prototype;
      // The schema reads fields by name, JSON only enumerable ones: a hidden field must not share a key.
      return (prototype === Object.prototype || prototype === null) && Object.getOwnPropertyNames(value).length === Object.keys(value).length;
    }
    default:
      return false;
  }
}
