import Ajv2020 from 'ajv/dist/2020';
import ajvCore from 'ajv/dist/core';
import additionalProperties from 'ajv/dist/vocabularies/applicator/additionalProperties';
import items2020 from 'ajv/dist/vocabularies/applicator/items2020';
import properties from 'ajv/dist/vocabularies/applicator/properties';
import format from 'ajv/dist/vocabularies/format/format';
import constKeyword from 'ajv/dist/vocabularies/validation/const';
import enumKeyword from 'ajv/dist/vocabularies/validation/enum';
import limitItems from 'ajv/dist/vocabularies/validation/limitItems';
import limitLength from 'ajv/dist/vocabularies/validation/limitLength';
import limitNumber from 'ajv/dist/vocabularies/validation/limitNumber';
import pattern from 'ajv/dist/vocabularies/validation/pattern';
import required from 'ajv/dist/vocabularies/validation/required';

/**
 * The two ajv instances of the Dynadata schema subset (see `json-schema.ts`), created on first use.
 *
 * - `metaSchemaAjv`: ajv's full draft 2020-12 (`Ajv2020`, every vocabulary and the meta-schema). Defining a
 *   type checks the schema with it, so a stored schema is always a valid 2020-12 schema in the subset.
 * - `subsetAjv`: the same ajv code generator with only the keywords of the subset, added in the order
 *   `Ajv2020` adds them (so errors come in the same order), and no meta-schema. Items are validated with it
 *   against stored, already checked schemas; it keeps a route group's bundle small (the vocabularies, the
 *   2020-12 meta-schema and the keywords the subset refuses are about a third of ajv). A keyword outside
 *   the subset is an error here too (strict mode).
 *
 * ajv is CommonJS: a default import of a module that only sets `exports.default` is that module's
 * `exports` under Node's ESM interop (and esbuild's for this `"type": "module"` package), hence `cjs()`.
 */
const cjs = <T>(imported: T): T => (imported as { default?: T }).default ?? imported;

/**
 * `ownProperties: true`: `properties` and `required` look at the item's own members only. A schema may name
 * a field `toString`, `constructor` or `valueOf`; without it, an item that leaves such an optional field out
 * would be checked against the member every object inherits (a function) and refused.
 *
 * `addUsedSchema: false`: a compiled schema is not registered under its `$id`, so a type whose schema changes
 * but keeps its `$id` (or a schema checked and then compiled in one process) compiles again instead of
 * failing with "schema with key or id already exists". The subset has no `$ref`, so nothing looks them up.
 */
const OPTIONS = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  unicodeRegExp: true,
  addUsedSchema: false,
  ownProperties: true,
} as const;

const addSubsetExtensions = (ajv: ajvCore, formats: Record<string, string>): ajvCore => {
  ajv.addKeyword({ keyword: 'x-document', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-indexed', schemaType: 'array' });
  for (const [name, regExp] of Object.entries(formats)) ajv.addFormat(name, new RegExp(regExp, 'u'));
  return ajv;
};

export const metaSchemaAjv = (formats: Record<string, string>): ajvCore =>
  addSubsetExtensions(new Ajv2020(OPTIONS), formats);

export const subsetAjv = (formats: Record<string, string>): ajvCore => {
  const Ajv = cjs(ajvCore);
  const ajv = new Ajv({ ...OPTIONS, meta: false, validateSchema: false });
  // Draft 2020-12's vocabularies in Ajv2020's order: core, validation, applicator, format, metadata.
  for (const keyword of ['$schema', '$id', '$comment']) ajv.addKeyword(keyword);
  for (const definition of [limitNumber, limitLength, pattern, required, limitItems])
    ajv.addKeyword(cjs(definition));
  ajv.addKeyword({ keyword: 'type', schemaType: ['string', 'array'] });
  ajv.addKeyword(cjs(constKeyword));
  ajv.addKeyword(cjs(enumKeyword));
  ajv.addKeyword(cjs(additionalProperties));
  ajv.addKeyword(cjs(properties));
  // `items` goes before `uniqueItems` in Ajv2020; without that keyword it goes last, as it does there.
  ajv.addKeyword({ ...cjs(items2020), before: undefined });
  ajv.addKeyword(cjs(format));
  for (const keyword of ['title', 'description', 'default', 'examples']) ajv.addKeyword(keyword);
  return addSubsetExtensions(ajv, formats);
};
