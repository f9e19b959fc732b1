import type { ErrorObject, ValidateFunction } from 'ajv/dist/core';
import type { FieldError } from '../../errors';
import { documentFieldSchema, JSON_SCHEMA_DIALECT, type JsonSchema } from './json-schema-shapes';

export type { JsonSchema };

/**
 * Dynadata type schemas are JSON Schema draft 2020-12 (checked and compiled with ajv 8, see `json-schema-ajv.ts`,
 * which is loaded on first use), restricted to a
 * documented subset so that every schema also has an exact zod equivalent (`zod-source.ts`):
 *
 * - `type` (one of `object`, `array`, `string`, `number`, `integer`, `boolean`, `null`, or a list of them),
 *   `enum`, `const`, `title`, `description`, `default`, `examples`;
 * - strings: `minLength`, `maxLength` (Unicode code points, as JSON Schema counts), `pattern` (Unicode regular
 *   expression), `format` (`email`, `date-time`, `date`, `uuid`, checked by the regular expressions below);
 * - numbers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`;
 * - arrays: `items`, `minItems`, `maxItems`;
 * - objects: `properties`, `required`, `additionalProperties` (boolean or a schema);
 * - our extension `x-document: true`: the field holds a storage reference `{bucket?, fullPath}` (the schema
 *   of such a field is expanded to that object shape, so any JSON Schema validator checks the shape). It may
 *   sit wherever a sub-schema may (a property, `additionalProperties`, array `items`, at any depth) but not
 *   on the root; every value in every position goes through the storage-reference validator
 *   (`documentFieldsOf` + `document-references.ts`) on create, update and validate;
 * - on the root only: `x-indexed`: names of top-level `string`/`number`/`integer` fields the list endpoint
 *   may sort by (at most `MAX_INDEXED_FIELDS`, each once; each its own index, in order). An indexed string field must declare `maxLength` of at most
 *   `MAX_INDEXED_STRING_LENGTH` (its value becomes part of an index sort key, which DynamoDB bounds).
 *
 * The root is an object schema. Field names starting with `_` and `createdAt`/`updatedAt` are reserved for
 * the system fields every item carries (`_id`, `_version`, `createdAt`, `updatedAt`).
 */

/** The most fields a type may index (`x-indexed`): one table index each (`0031-dynadata-sort-indexes.md`). */
export const MAX_INDEXED_FIELDS = 3;

/** Longest value (in characters) an indexed string field may declare. */
export const MAX_INDEXED_STRING_LENGTH = 900;

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment'];
const KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  ...ANNOTATIONS,
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'additionalProperties',
  'x-document',
]);
const ROOT_KEYWORDS = new Set([...KEYWORDS, '$schema', '$id', 'x-indexed']);

/** The formats a schema may use, each one regular expression shared by ajv and the zod source. */
export const FORMAT_PATTERNS: Record<string, string> = {
  email:
    "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
  'date-time':
    '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$',
  date: '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])$',
  uuid: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
};

export const isReservedFieldName = (name: string): boolean =>
  name.startsWith('_') || name === 'createdAt' || name === 'updatedAt';

/** A member name as a JSON pointer segment (RFC 6901). */
const escapePointer = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks that `schema` stays in the supported subset and returns it normalised (document fields expanded,
 * `$schema` set). Problems are reported with JSON pointers into the schema.
 */
export const normaliseTypeSchema = async (
  schema: unknown,
): Promise<{ schema: JsonSchema; problems: FieldError[]; indexed: string[] }> => {
  const problems: FieldError[] = [];
  const add = (pointer: string, message: string) => problems.push({ pointer: pointer || '/', message });
  const walk = (node: unknown, pointer: string, root: boolean): JsonSchema => {
    if (!isPlainObject(node)) {
      add(pointer, 'must be an object schema');
      return {};
    }
    for (const key of Object.keys(node)) {
      if (!(root ? ROOT_KEYWORDS : KEYWORDS).has(key)) add(`${pointer}/${key}`, `unsupported keyword ${key}`);
    }
    if (node['x-document'] === true) {
      if (root) add('/x-document', 'the root of a type schema is an item, not a document field');
      return documentFieldSchema(node.description as string | undefined);
    }
    if (node['x-document'] !== undefined) add(`${pointer}/x-document`, 'must be true when present');
    const out: JsonSchema = { ...node };
    const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
    if (types.length === 0 && node.enum === undefined && node.const === undefined)
      add(`${pointer}/type`, 'is required (or enum/const)');
    for (const t of types)
      if (!(TYPES as readonly unknown[]).includes(t)) add(`${pointer}/type`, `unknown type ${String(t)}`);
    if (node.format !== undefined && !Object.hasOwn(FORMAT_PATTERNS, String(node.format)))
      add(`${pointer}/format`, `unsupported format (supported: ${Object.keys(FORMAT_PATTERNS).join(', ')})`);
    if (node.pattern !== undefined) {
      try {
        new RegExp(String(node.pattern), 'u');
      } catch {
        add(`${pointer}/pattern`, 'is not a valid regular expression');
      }
    }
    if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.length === 0))
      add(`${pointer}/enum`, 'must be a non-empty array');
    if (node.items !== undefined) out.items = walk(node.items, `${pointer}/items`, false);
    if (node.properties !== undefined) {
      if (!isPlainObject(node.properties)) add(`${pointer}/properties`, 'must be an object');
      else
        out.properties = Object.fromEntries(
          Object.entries(node.properties).map(([name, sub]) => [
            name,
            walk(sub, `${pointer}/properties/${escapePointer(name)}`, false),
          ]),
        );
    }
    if (isPlainObject(node.additionalProperties))
      out.additionalProperties = walk(node.additionalProperties, `${pointer}/additionalProperties`, false);
    if (
      node.required !== undefined &&
      (!Array.isArray(node.required) || !node.required.every((r) => typeof r === 'string'))
    )
      add(`${pointer}/required`, 'must be an array of field names');
    return out;
  };
  const out = walk(schema, '', true);
  if (out.type !== 'object') add('/type', 'the root of a type schema must be {"type": "object"}');
  if (out.$schema !== undefined && out.$schema !== JSON_SCHEMA_DIALECT)
    add('/$schema', `only ${JSON_SCHEMA_DIALECT} is supported`);
  const properties = (out.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of Object.keys(properties))
    if (isReservedFieldName(name)) add(`/properties/${name}`, 'is a reserved field name');
  const indexed = out['x-indexed'] === undefined ? [] : out['x-indexed'];
  if (
    !Array.isArray(indexed) ||
    indexed.length > MAX_INDEXED_FIELDS ||
    !indexed.every((f) => typeof f === 'string') ||
    new Set(indexed).size !== indexed.length
  ) {
    add('/x-indexed', `must list at most ${MAX_INDEXED_FIELDS} distinct field names`);
  } else {
    for (const field of indexed) {
      const own = Object.hasOwn(properties, field) ? properties[field] : undefined;
      const t = own?.type;
      if (t !== 'string' && t !== 'number' && t !== 'integer')
        add('/x-indexed', `${field} must be a top-level string, number or integer field`);
      const maxLength = own?.maxLength;
      if (
        t === 'string' &&
        (typeof maxLength !== 'number' ||
          !Number.isInteger(maxLength) ||
          maxLength > MAX_INDEXED_STRING_LENGTH)
      )
        add(
          `/properties/${field}/maxLength`,
          `an indexed string field must declare maxLength of at most ${MAX_INDEXED_STRING_LENGTH}`,
        );
    }
  }
  if (problems.length === 0) {
    const { metaSchemaAjv } = await loadAjv();
    try {
      const normalised = { ...out, $schema: JSON_SCHEMA_DIALECT };
      checker ??= metaSchemaAjv(FORMAT_PATTERNS);
      checker.compile(normalised);
      await compile(normalised);
    } catch (error) {
      add('/', `not a valid schema: ${(error as Error).message}`);
    }
  }
  return {
    schema: { $schema: JSON_SCHEMA_DIALECT, ...out },
    problems,
    indexed: Array.isArray(indexed) ? (indexed as string[]) : [],
  };
};

type AjvModule = typeof import('#lazy/json-schema-ajv');

/**
 * ajv (about 100 KB minified) is imported on the first call that checks or validates against a schema, so a
 * cold start of a group that carries it (dynadata, workflows) does not load it.
 */
let ajvModule: Promise<AjvModule> | undefined;
const loadAjv = (): Promise<AjvModule> => {
  ajvModule ??= import('#lazy/json-schema-ajv');
  return ajvModule;
};

/** Checks a schema being defined against the 2020-12 meta-schema (type administration only). */
let checker: ReturnType<AjvModule['metaSchemaAjv']> | undefined;
/** Compiles stored schemas to validate items. */
let subset: ReturnType<AjvModule['subsetAjv']> | undefined;

const compile = async (schema: JsonSchema): Promise<ValidateFunction> => {
  const { subsetAjv } = await loadAjv();
  subset ??= subsetAjv(FORMAT_PATTERNS);
  return subset.compile(schema);
};

/** Compiled validators, one per schema text (types are few; the cache is bounded anyway). */
const validators = new Map<string, ValidateFunction>();

export const validatorFor = async (schema: JsonSchema): Promise<ValidateFunction> => {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    if (validators.size > 500) validators.clear();
    validate = await compile(schema);
    validators.set(key, validate);
  }
  return validate;
};

const describeError = (e: ErrorObject): FieldError => {
  let pointer = e.instancePath;
  let message = e.message ?? 'is not valid';
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') {
    pointer += `/${String(params.missingProperty)}`;
    message = 'is required';
  } else if (e.keyword === 'additionalProperties') {
    pointer += `/${escapePointer(String(params.additionalProperty))}`;
    message = 'is not a field of this type';
  } else if (e.keyword === 'enum') {
    message = `must be one of ${JSON.stringify(params.allowedValues)}`;
  }
  return { pointer, message };
};

/** Validates `data` against `schema`; every violation is listed, pointers rooted at `root` (e.g. `/body`). */
export const validateAgainst = async (
  schema: JsonSchema,
  data: unknown,
  root = '/body',
): Promise<FieldError[]> => {
  const validate = await validatorFor(schema);
  if (validate(data)) return [];
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of validate.errors ?? []) {
    const { pointer, message } = describeError(e);
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: `${root}${pointer}`, message });
  }
  return out;
};

/**
 * The keywords of the subset whose value is a sub-schema applied to part of the data. `documentFieldsOf`
 * follows each of them; a test keeps this list equal to the subset's applicators, so a keyword added to the
 * subset later cannot hide document fields from the reference check.
 */
export const SUBSCHEMA_KEYWORDS = ['properties', 'additionalProperties', 'items'] as const;

/**
 * JSON pointers of the document fields in `data`, with their values, in every position the subset allows:
 * `properties`, `additionalProperties` (the members `properties` does not name, as JSON Schema applies it)
 * and array `items`, at any depth. Run on data that passed the schema.
 */
export const documentFieldsOf = (
  schema: JsonSchema,
  data: unknown,
  pointer = '',
): { pointer: string; value: unknown }[] => {
  if (schema['x-document'] === true) return data === undefined ? [] : [{ pointer, value: data }];
  const out: { pointer: string; value: unknown }[] = [];
  if (isPlainObject(data)) {
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    const additional = isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [name, value] of Object.entries(data)) {
      const sub = Object.hasOwn(properties, name) ? properties[name] : additional;
      if (isPlainObject(sub)) out.push(...documentFieldsOf(sub, value, `${pointer}/${escapePointer(name)}`));
    }
  }
  if (Array.isArray(data) && isPlainObject(schema.items)) {
    data.forEach((v, i) => {
      out.push(...documentFieldsOf(schema.items as JsonSchema, v, `${pointer}/${i}`));
    });
  }
  return out;
};
