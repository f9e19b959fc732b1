/**
 * Plain shapes of the Dynadata schema dialect, free of the validator (`json-schema.ts` checks and compiles
 * schemas with ajv): the built-in types' schemas and the OpenAPI document use these without carrying ajv.
 */
export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The expanded shape of a document field (`x-document: true`). */
export const documentFieldSchema = (description?: string): JsonSchema => ({
  type: 'object',
  'x-document': true,
  description: description ?? 'A storage reference to a file of the company: `{bucket?, fullPath}`.',
  properties: {
    bucket: { type: 'string', minLength: 1, description: 'Platform bucket; defaults to it when absent.' },
    fullPath: { type: 'string', minLength: 1, description: 'Object path under `companies/<companyId>/`.' },
  },
  required: ['fullPath'],
  additionalProperties: false,
});

/**
 * The longest values of a document field's members, for the OpenAPI document only. The validator leaves
 * lengths to the storage-reference check, which counts `fullPath` in bytes (S3's limit) and answers
 * `invalid_storage_reference` for every bad reference alike; a schema `maxLength` counts characters and would
 * answer some of them first with another code. Any value over these character counts is over the byte limit
 * too, so the document's bounds are true.
 */
export const DOCUMENT_FIELD_MAX_LENGTHS: Readonly<Record<string, number>> = { bucket: 63, fullPath: 1024 };
