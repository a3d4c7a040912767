/**
 * What a JSON file in a policies folder is, by its top-level keys: `validate policies/*.json` is
 * handed policies, their cases files, a manifest and the policy JSON Schema, and checks each as
 * what it is.
 */
export type FileKind = 'policy' | 'cases' | 'manifest' | 'json-schema';

/** How each kind is named in messages. */
export const fileKindNames: Readonly<Record<FileKind, string>> = {
  policy: 'a policy',
  cases: 'a cases file',
  manifest: 'a manifest',
  'json-schema': 'a JSON Schema',
};

/** What tells each kind apart, for the message about a file that is none of them. */
export const expectedKinds =
  'expected a policy ("version": 1, "default", "rules"), a cases file ("policy", "cases"), a manifest ("primitives") or a JSON Schema ("$schema" of json-schema.org)';

/** A JSON Schema's own `$schema` is a json-schema.org URI; a policy's is a path to policy.schema.json. */
const jsonSchemaDialect = /^https?:\/\/json-schema\.org\//;

/** The kind of a parsed JSON document, or undefined when it looks like none of them. */
export function recognizeFileKind(document: unknown): FileKind | undefined {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return undefined;
  const has = (key: string) => Object.hasOwn(document, key);
  const schema = (document as { $schema?: unknown }).$schema;
  if (typeof schema === 'string' && jsonSchemaDialect.test(schema)) return 'json-schema';
  // A policy's keys first: a policy with a stray key is a policy with a schema error, not another
  // kind. Its version is the number 1; a string `version` is package.json's.
  if (typeof (document as { version?: unknown }).version === 'number' || has('default') || has('rules')) return 'policy';
  if (has('cases')) return 'cases';
  if (has('primitives')) return 'manifest';
  return undefined;
}
