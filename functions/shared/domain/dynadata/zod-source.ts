import { FORMAT_PATTERNS, type JsonSchema } from './json-schema';

/**
 * Turns a type's JSON Schema (the supported subset of `json-schema.ts`) into zod 4 source text that accepts
 * and refuses exactly what the JSON Schema validator does. Formats use the same regular expressions as the
 * JSON Schema validator, and integers are checked with `Number.isInteger` (JSON Schema has no safe-integer
 * bound), so the two agree value for value.
 */
export const SCHEMA_LIBRARIES = ['zod'] as const;

const lit = (value: unknown): string => JSON.stringify(value);
const regexLiteral = (pattern: string): string => `new RegExp(${lit(pattern)}, 'u')`;

/** Zod source of a function that copies a plain object onto one without a prototype. */
const OWN_MEMBERS =
  '(v) => (typeof v === "object" && v !== null && !Array.isArray(v) ? Object.assign(Object.create(null), v) : v)';

const indent = (text: string, by = '  '): string => text.replaceAll('\n', `\n${by}`);

const withDescription = (expr: string, schema: JsonSchema): string =>
  typeof schema.description === 'string' ? `${expr}.describe(${lit(schema.description)})` : expr;

const forType = (type: string, s: JsonSchema): string => {
  switch (type) {
    case 'string': {
      let e = 'z.string()';
      // JSON Schema counts characters (code points); String#length counts UTF-16 units.
      if (typeof s.minLength === 'number')
        e += `.refine((s) => [...s].length >= ${s.minLength}, 'must have at least ${s.minLength} characters')`;
      if (typeof s.maxLength === 'number')
        e += `.refine((s) => [...s].length <= ${s.maxLength}, 'must have at most ${s.maxLength} characters')`;
      if (typeof s.pattern === 'string') e += `.regex(${regexLiteral(s.pattern)})`;
      if (typeof s.format === 'string') {
        const pattern = Object.hasOwn(FORMAT_PATTERNS, s.format) ? FORMAT_PATTERNS[s.format] : undefined;
        if (pattern) e += `.regex(${regexLiteral(pattern)}, ${lit(`must be a valid ${s.format}`)})`;
      }
      return e;
    }
    case 'number':
    case 'integer': {
      let e = 'z.number()';
      if (type === 'integer') e += `.refine(Number.isInteger, 'must be an integer')`;
      if (typeof s.minimum === 'number') e += `.gte(${s.minimum})`;
      if (typeof s.maximum === 'number') e += `.lte(${s.maximum})`;
      if (typeof s.exclusiveMinimum === 'number') e += `.gt(${s.exclusiveMinimum})`;
      if (typeof s.exclusiveMaximum === 'number') e += `.lt(${s.exclusiveMaximum})`;
      return e;
    }
    case 'boolean':
      return 'z.boolean()';
    case 'null':
      return 'z.null()';
    case 'array': {
      let e = `z.array(${s.items ? toZod(s.items as JsonSchema) : 'z.unknown()'})`;
      if (typeof s.minItems === 'number') e += `.min(${s.minItems})`;
      if (typeof s.maxItems === 'number') e += `.max(${s.maxItems})`;
      return e;
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s.required ?? []) as string[]);
      const fields = Object.entries(properties).map(([name, sub]) => {
        const e = toZod(sub);
        return `${lit(name)}: ${required.has(name) ? e : `${e}.optional()`},`;
      });
      // A required name without a property schema: any value, but present.
      for (const name of required)
        if (!Object.hasOwn(properties, name))
          fields.push(`${lit(name)}: z.unknown().refine((v) => v !== undefined),`);
      const body = fields.length === 0 ? '{}' : `{\n  ${indent(fields.join('\n'))}\n}`;
      let e: string;
      if (s.additionalProperties === false) e = `z.strictObject(${body})`;
      else if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null)
        e = `z.object(${body}).catchall(${toZod(s.additionalProperties as JsonSchema)})`;
      else e = `z.looseObject(${body})`;
      // zod reads `value[name]`, inherited members included: an item without its own `toString` would be
      // checked against Object.prototype.toString. The JSON Schema validator reads own members only, so
      // such an object is first copied onto one without a prototype.
      const inherited = [...Object.keys(properties), ...required].some((name) => name in Object.prototype);
      return inherited ? `z.preprocess(${OWN_MEMBERS}, ${e})` : e;
    }
    default:
      return 'z.never()';
  }
};

/** Zod expression for one schema node. */
export const toZod = (s: JsonSchema): string => {
  let e: string;
  if (s.const !== undefined) e = `z.literal(${lit(s.const)})`;
  else if (Array.isArray(s.enum)) {
    const values = s.enum as unknown[];
    e = values.every((v) => typeof v === 'string')
      ? `z.enum(${lit(values)})`
      : values.length === 1
        ? `z.literal(${lit(values[0])})`
        : `z.union([${values.map((v) => `z.literal(${lit(v)})`).join(', ')}])`;
  } else {
    const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    // `integer` is a subset of `number`: the wider one alone decides.
    const effective = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    const branches = effective.map((t) => forType(t, s));
    e = branches.length === 1 ? (branches[0] ?? 'z.never()') : `z.union([${branches.join(', ')}])`;
  }
  return withDescription(e, s);
};

/** A complete zod module: `export const schema = ...`. */
export const zodSourceOf = (typeName: string, schema: JsonSchema): string =>
  [
    `// zod 4 schema of the Dynadata type "${typeName}", equivalent to its JSON Schema (draft 2020-12).`,
    `// System fields (_id, _version, createdAt, updatedAt) are set by the API and not part of this schema.`,
    // Joined at run time: the bundle must not contain an import statement of zod as text.
    ['import { z } fr', "om 'zod';"].join(''),
    '',
    `export const schema = ${toZod(schema)};`,
    '',
  ].join('\n');
