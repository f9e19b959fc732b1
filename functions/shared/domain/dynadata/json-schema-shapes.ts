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
    bucket: {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      description: 'Platform bucket; defaults to it when absent.',
    },
    fullPath: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'Object path under `companies/<companyId>/`.',
    },
  },
  required: ['fullPath'],
  additionalProperties: false,
});
