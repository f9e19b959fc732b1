import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import * as fc from 'fast-check';
import {
  astralStrings,
  BLANK_STRINGS,
  HOSTILE_URLS,
  headerValueOf,
  isMarkdownName,
  isUrlName,
  MAX_NESTING_DEPTH,
  markdownNestings,
  NESTING_DEPTHS,
  nestedJsonText,
  PROTOTYPE_NAMES,
  PROTOTYPE_VALUES,
} from './hostile';
import type { SeededTenant } from './seed';

/**
 * Contract fuzzing: requests generated from the served OpenAPI document (valid ones, built from the
 * document's JSON schemas with real ids of a seeded tenant mixed in, and invalid ones: wrong types, missing
 * members, unknown query parameters, bad JSON, missing, wrong and under-scoped credentials, methods a path
 * does not have, and the hostile families of `./hostile.ts` at every position where they fit: prototype
 * member names, deep JSON and Markdown nesting, blank and astral strings, URLs not to be taken as written),
 * sent to a running stack, and every answer checked against the document:
 *
 * - `no-5xx`: nothing answers 5xx, except a 501 the operation declares;
 * - `status-declared`, `content-type-declared`, `body-schema`: the status, the media type and the body are
 *   the ones the document declares for the operation;
 * - `headers-declared`: the API's own headers (`x-request-id`, `Retry-After`, `Idempotent-Replayed`) sent on
 *   an answer are declared on that response, and declared required headers are sent;
 * - `x-request-id`: every answer carries one;
 * - `problem-json`: every 4xx is `application/problem+json` with a stable `code`, its `status` and the
 *   `requestId` of the `x-request-id` header; `code-declared`: the code is among those the document
 *   declares for that status (a `code` enum in the response schema, directly or through `allOf`);
 * - `retry-after`: a 429 carries `Retry-After`;
 * - `method-not-allowed`: a method the path item does not have answers 405 with `Allow` listing its methods;
 * - `refused`: an invalid request is refused with the status its kind calls for (401, 403, 405 or a 4xx).
 *
 * Everything is read from the document, so routes added later are fuzzed with no change here.
 */

type Schema = Record<string, unknown>;
export type OpenApiDocument = Document;
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
  security?: unknown[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
interface ResponseObject {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: Schema }>;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, ResponseObject>;
  security?: unknown[];
  'x-required-scope'?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const API_HEADERS = ['x-request-id', 'retry-after', 'idempotent-replayed'];

/** Every kind of request the engine generates; the hostile families of `./hostile.ts` come last. */
export const REQUEST_KINDS = [
  'valid',
  'wrong-type',
  'missing-member',
  'unknown-query',
  'bad-query-value',
  'bad-json',
  'wrong-media-type',
  'long-path-param',
  'no-credential',
  'wrong-credential',
  'limited-scope',
  'wrong-method',
  'prototype-member',
  'deep-nesting',
  'markdown-nesting',
  'blank-string',
  'astral-string',
  'url-control',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export interface FuzzRequest {
  kind: RequestKind;
  method: string;
  /** The document's path template; `undefined` operation for `wrong-method`. */
  template: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What the kind calls for: `any` (a declared answer), `4xx`, or one status. */
  expect: 'any' | '4xx' | number;
}

export interface Finding {
  check: string;
  operation: string;
  status: number;
  code: string;
  count: number;
  example: string;
}

export interface FuzzReport {
  requests: number;
  /** Requests whose first attempt lost its connection and whose second was answered. */
  retriedTransport: number;
  elapsedMs: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  byCheck: Record<string, { passed: number; failed: number }>;
  findings: Finding[];
}

export interface FuzzOptions {
  apiUrl: string;
  tenant: SeededTenant;
  seed: number;
  count: number;
  concurrency?: number;
  /** The document to fuzz from; fetched from `GET /v1/openapi.json` when absent. */
  document?: Document;
  /** Only these kinds (all when absent), to reproduce one family's findings with fewer requests. */
  kinds?: readonly RequestKind[];
  onProgress?: (done: number) => void;
}

// ---------------------------------------------------------------------------------------------------------
// Schemas: OpenAPI 3.0 → JSON Schema for ajv, `$ref` resolution, generators.

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows local `$ref`s (`#/components/...`) of any object of the document. */
export const deref = <T>(doc: Document, value: T | undefined): T => {
  let v = (value ?? {}) as Schema;
  for (let i = 0; i < 16 && typeof v.$ref === 'string'; i++) {
    v = (v.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc) as Schema;
    v ??= {};
  }
  return v as T;
};

const resolve = (doc: Document, schema: Schema | undefined): Schema => deref(doc, schema);

/** OpenAPI 3.0 schema objects → JSON Schema that ajv reads (`nullable`, boolean exclusive bounds, refs). */
export const toJsonSchema = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace(/^#\//, 'openapi#/');
    else if (k === 'example' || k === 'examples' || k === 'nullable') continue;
    else if (['properties', 'patternProperties'].includes(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, toJsonSchema(s)]));
    else out[k] = toJsonSchema(v);
  }
  if (out.exclusiveMinimum === true) {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  } else if (out.exclusiveMinimum === false) delete out.exclusiveMinimum;
  if (out.exclusiveMaximum === true) {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  } else if (out.exclusiveMaximum === false) delete out.exclusiveMaximum;
  return value.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const makeAjv = (doc: Document): Ajv => {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: 'openapi', components: toJsonSchema(doc.components ?? {}) });
  return ajv;
};

/** Codes the document declares for one response: the intersection of `code` enums along `allOf`. */
export const declaredCodes = (doc: Document, schema: Schema | undefined, depth = 0): string[] | undefined => {
  if (!schema || depth > 8) return undefined;
  const s = resolve(doc, schema);
  const sets: string[][] = [];
  const code = isObject(s.properties) ? resolve(doc, s.properties.code as Schema | undefined) : undefined;
  if (code && Array.isArray(code.enum)) sets.push(code.enum as string[]);
  if (code && typeof code.const === 'string') sets.push([code.const]);
  for (const part of (s.allOf as Schema[] | undefined) ?? []) {
    const inner = declaredCodes(doc, part, depth + 1);
    if (inner) sets.push(inner);
  }
  const alternatives = [...((s.oneOf as Schema[]) ?? []), ...((s.anyOf as Schema[]) ?? [])];
  if (alternatives.length > 0) {
    const inner = alternatives.map((a) => declaredCodes(doc, a, depth + 1));
    if (inner.every((x) => x !== undefined)) sets.push([...new Set(inner.flat() as string[])]);
  }
  if (sets.length === 0) return undefined;
  return sets.reduce((a, b) => a.filter((x) => b.includes(x)));
};

type Arb = fc.Arbitrary<unknown>;

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

const anyJson: Arb = fc.jsonValue({ maxDepth: 2 });

/** A generator of values valid against `schema`, preferring real values for members named in `values`. */
const arbitraryOf = (
  doc: Document,
  schema: Schema | undefined,
  values: Record<string, unknown[]>,
  name?: string,
  depth = 0,
): Arb => {
  const s = resolve(doc, schema);
  const generated = generatedOf(doc, s, values, depth);
  const real = (name ? (values[name] ?? []) : []).filter(
    (v) =>
      s.type === undefined || jsonType(v) === s.type || (s.type === 'number' && jsonType(v) === 'integer'),
  );
  const base =
    real.length > 0 && s.enum === undefined
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: generated })
      : generated;
  return s.nullable === true ? fc.oneof({ weight: 5, arbitrary: base }, fc.constant(null)) : base;
};

const generatedOf = (doc: Document, s: Schema, values: Record<string, unknown[]>, depth: number): Arb => {
  if (depth > 6) return fc.constant({});
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Schema[]).map((p) => resolve(doc, p));
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const p of parts) {
      Object.assign(merged.properties as Schema, p.properties ?? {});
      (merged.required as string[]).push(...((p.required as string[]) ?? []));
      if (p.additionalProperties === false) merged.additionalProperties = false;
    }
    return generatedOf(doc, merged, values, depth + 1);
  }
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0)
    return fc.oneof(...alternatives.map((a) => arbitraryOf(doc, a, values, undefined, depth + 1)));
  switch (s.type) {
    case 'string':
      return stringOf(s);
    case 'integer': {
      const min = typeof s.minimum === 'number' ? Math.ceil(s.minimum) : -1000;
      const max = typeof s.maximum === 'number' ? Math.floor(s.maximum) : 1_000_000;
      return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) });
    }
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : -1e6;
      const max = typeof s.maximum === 'number' ? s.maximum : 1e6;
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxLength = Math.min(typeof s.maxItems === 'number' ? s.maxItems : 4, minLength + 4);
      return fc.array(arbitraryOf(doc, s.items as Schema, values, undefined, depth + 1), {
        minLength,
        maxLength,
      });
    }
    default:
      if (s.type === 'object' || isObject(s.properties)) return objectOf(doc, s, values, depth);
      return anyJson;
  }
};

const objectOf = (doc: Document, s: Schema, values: Record<string, unknown[]>, depth: number): Arb => {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = (s.required as string[] | undefined) ?? [];
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (s.additionalProperties === false) return fc.constant({});
    const valueArb = isObject(s.additionalProperties)
      ? arbitraryOf(doc, s.additionalProperties, values, undefined, depth + 1)
      : anyJson;
    const dictionary = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), valueArb, { maxKeys: 3 });
    // A free-form object (Dynadata fields, function input) is often one of the tenant's real shapes.
    const real = (values['{}'] ?? []).filter(isObject);
    return real.length > 0 && depth === 0
      ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: dictionary })
      : dictionary;
  }
  return fc.record(
    Object.fromEntries(names.map((n) => [n, arbitraryOf(doc, properties[n], values, n, depth + 1)])),
    { requiredKeys: names.filter((n) => required.includes(n)) },
  );
};

const stringOf = (s: Schema): Arb => {
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
  const maxLength = Math.min(typeof s.maxLength === 'number' ? s.maxLength : 40, minLength + 40);
  switch (s.format) {
    case 'date-time':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2099-12-31T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
  }
  if (typeof s.pattern === 'string') {
    try {
      const pattern = new RegExp(s.pattern);
      return fc
        .stringMatching(pattern)
        .filter((x) => x.length >= minLength && (typeof s.maxLength !== 'number' || x.length <= s.maxLength));
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain strings.
    }
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
};

/** A value of another JSON type than the schema's (`undefined` when the schema takes any type). */
const wrongTypeOf = (doc: Document, schema: Schema | undefined): Arb | undefined => {
  const s = resolve(doc, schema);
  const type = s.type;
  if (typeof type !== 'string') return undefined;
  const others: Record<string, Arb> = {
    string: fc.oneof(fc.integer(), fc.boolean(), fc.constant([1, 2])),
    integer: fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.boolean(), fc.constant(1.5)),
    number: fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.boolean(), fc.constant({})),
    boolean: fc.oneof(fc.constant('yes'), fc.integer(), fc.constant([])),
    array: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant({ a: 1 })),
    object: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant([{}])),
  };
  const arb = others[type];
  return arb && s.nullable === true ? arb.filter((v) => v !== null) : arb;
};

// ---------------------------------------------------------------------------------------------------------
// Requests.

interface OperationRef {
  method: string;
  template: string;
  op: Operation;
  secured: boolean;
}

const operationsOf = (doc: Document): OperationRef[] =>
  Object.entries(doc.paths).flatMap(([template, item]) =>
    METHODS.filter((m) => item[m]).map((m) => {
      const op = item[m] as Operation;
      const security = op.security ?? doc.security ?? [];
      return { method: m.toUpperCase(), template, op, secured: security.length > 0 };
    }),
  );

const jsonBodySchema = (op: Operation): Schema | undefined =>
  deref<NonNullable<Operation['requestBody']>>(currentDocument, op.requestBody).content?.['application/json']
    ?.schema;

let currentDocument: Document = { paths: {} };
const paramsIn = (op: Operation, location: Parameter['in']) =>
  (op.parameters ?? []).map((p) => deref<Parameter>(currentDocument, p)).filter((p) => p.in === location);

interface Parts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

/** Valid parts of one operation: path parameters, query, header parameters and body. */
const partsOf = (doc: Document, o: OperationRef, values: Record<string, unknown[]>): fc.Arbitrary<Parts> => {
  const group = (location: Parameter['in']) => {
    const ps = paramsIn(o.op, location);
    return fc.record(
      Object.fromEntries(ps.map((p) => [p.name, arbitraryOf(doc, p.schema, values, p.name)])),
      { requiredKeys: ps.filter((p) => p.required || location === 'path').map((p) => p.name) },
    );
  };
  const bodySchema = jsonBodySchema(o.op);
  return fc.record({
    params: group('path'),
    query: group('query'),
    headers: group('header'),
    body: bodySchema ? arbitraryOf(doc, bodySchema, values) : fc.constant(undefined),
  });
};

/**
 * Fills a path template. A value of dots only would be a dot segment (`/v1/transcodes/./cancel`), which
 * clients and the gateway resolve to another path, even percent-encoded; such values get a suffix, so the
 * request stays on the operation it was generated for.
 */
const pathOf = (template: string, params: Record<string, unknown>) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = String(params[name] ?? 'x');
    return encodeURIComponent(/^\.+$/.test(value) ? `${value}_` : value);
  });

const queryOf = (query: Record<string, unknown>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined) search.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const s = search.toString();
  return s === '' ? '' : `?${s}`;
};

const stringHeaders = (h: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(h)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );

const requestOf = (
  o: OperationRef,
  kind: RequestKind,
  parts: Parts,
  credential: Record<string, string>,
  expect: FuzzRequest['expect'],
  override: Partial<FuzzRequest> = {},
): FuzzRequest => ({
  kind,
  method: o.method,
  template: o.template,
  path: `${pathOf(o.template, parts.params)}${queryOf(parts.query)}`,
  headers: {
    ...stringHeaders(parts.headers),
    ...(parts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...credential,
  },
  ...(parts.body !== undefined ? { body: JSON.stringify(parts.body) } : {}),
  expect,
  ...override,
});

// ---------------------------------------------------------------------------------------------------------
// Positions: where in a generated request a hostile value goes.

type Step = string | number;

/**
 * A place in a request: a member or item of the body (by its path), or a parameter by name. `exact` when
 * `schema` is the only one that applies there (every step down from the body a member or item of a schema
 * without alternatives): only then must a value it refuses be refused, since with `anyOf` (a Dynadata
 * item of any type, for one) another alternative may take it.
 */
type BodyPosition = { in: 'body'; path: Step[]; name: string | undefined; schema: Schema; exact: boolean };
type Position =
  | BodyPosition
  | { in: 'query' | 'header' | 'path'; name: string; schema: Schema; exact: boolean };

const subSchemas = (s: Schema): Schema[] => [
  ...((s.allOf as Schema[] | undefined) ?? []),
  ...((s.oneOf as Schema[] | undefined) ?? []),
  ...((s.anyOf as Schema[] | undefined) ?? []),
];

/**
 * The schema of one member (or item) of a value of schema `schema`: declared properties first, then the
 * parts and alternatives, then `additionalProperties`. Own properties only, so a member named `constructor`
 * is not found on `Object.prototype`.
 */
const memberSchema = (
  doc: Document,
  schema: Schema | undefined,
  step: Step,
  depth = 0,
): Schema | undefined => {
  const s = resolve(doc, schema);
  if (depth > 8) return undefined;
  if (typeof step === 'number' && isObject(s.items)) return resolve(doc, s.items);
  if (typeof step === 'string' && isObject(s.properties) && Object.hasOwn(s.properties, step))
    return resolve(doc, s.properties[step] as Schema);
  for (const part of subSchemas(s)) {
    const found = memberSchema(doc, part, step, depth + 1);
    if (found) return found;
  }
  return typeof step === 'string' && isObject(s.additionalProperties)
    ? resolve(doc, s.additionalProperties)
    : undefined;
};

/** The string schema among a schema and its alternatives (its `maxLength` is the limit a value meets). */
const stringSchemaOf = (doc: Document, schema: Schema | undefined, depth = 0): Schema | undefined => {
  const s = resolve(doc, schema);
  if (s.type === 'string') return s;
  if (depth > 8) return undefined;
  return subSchemas(s)
    .map((part) => stringSchemaOf(doc, part, depth + 1))
    .find((found) => found !== undefined);
};

/** Every member name a schema declares, at any depth: which operations have a URL or a Markdown field. */
const declaredNames = (doc: Document, schema: Schema | undefined, depth = 0): string[] => {
  const s = resolve(doc, schema);
  if (depth > 8) return [];
  const properties = isObject(s.properties) ? Object.entries(s.properties as Record<string, Schema>) : [];
  const inner = [...subSchemas(s), s.items, s.additionalProperties].filter(isObject);
  return [
    ...properties.flatMap(([name, p]) => [name, ...declaredNames(doc, p, depth + 1)]),
    ...inner.flatMap((part) => declaredNames(doc, part, depth + 1)),
  ];
};

/** Every position of a generated body: the body itself, then each member and item, depth first. */
const bodyPositions = (
  doc: Document,
  schema: Schema | undefined,
  value: unknown,
  path: Step[] = [],
  exact = true,
): BodyPosition[] => {
  const here: BodyPosition = {
    in: 'body',
    path,
    name: path.findLast((step): step is string => typeof step === 'string'),
    schema: resolve(doc, schema),
    exact,
  };
  const childrenExact = exact && subSchemas(here.schema).length === 0;
  const children: [Step, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isObject(value)
      ? Object.entries(value)
      : [];
  return [
    here,
    ...children.flatMap(([step, child]) =>
      bodyPositions(doc, memberSchema(doc, schema, step), child, [...path, step], childrenExact),
    ),
  ];
};

const valueAt = (value: unknown, path: Step[]): unknown =>
  path.reduce<unknown>(
    (v, step) => (isObject(v) || Array.isArray(v) ? (v as Schema)[step] : undefined),
    value,
  );

/** An object with one more own member; `__proto__` too is stored as a member, not as the prototype. */
const withMember = (object: Schema, name: string, value: unknown): Schema =>
  Object.defineProperty({ ...object }, name, { value, enumerable: true, writable: true, configurable: true });

/** A copy of `value` with the value at `path` replaced by `next(old)`; the rest is shared. */
const replacedAt = (value: unknown, path: Step[], next: (old: unknown) => unknown): unknown => {
  const [step, ...rest] = path;
  if (step === undefined) return next(value);
  if (Array.isArray(value)) return value.map((v, i) => (i === step ? replacedAt(v, rest, next) : v));
  if (isObject(value)) return withMember(value, String(step), replacedAt(value[step], rest, next));
  return value;
};

/** The positions of a string in a request: body strings and members declared as strings, and parameters. */
const stringPositions = (doc: Document, o: OperationRef, parts: Parts): Position[] => [
  ...bodyPositions(doc, jsonBodySchema(o.op), parts.body)
    .filter((p) => typeof valueAt(parts.body, p.path) === 'string' || p.schema.type === 'string')
    .map((p) => ({
      ...p,
      schema: stringSchemaOf(doc, p.schema) ?? p.schema,
      exact: p.exact && p.schema.type === 'string',
    })),
  ...(['path', 'query', 'header'] as const).flatMap((location) =>
    paramsIn(o.op, location).flatMap((p): Position[] => {
      const schema = stringSchemaOf(doc, p.schema);
      return schema
        ? [{ in: location, name: p.name, schema, exact: resolve(doc, p.schema).type === 'string' }]
        : [];
    }),
  ),
];

/**
 * Parts with `value` at `position`. A header value goes as a client puts it on the wire (`headerValueOf`);
 * a path segment's lone surrogate, which no URL can encode, becomes U+FFFD.
 */
const withValueAt = (parts: Parts, position: Position, value: unknown): Parts => {
  switch (position.in) {
    case 'body':
      return { ...parts, body: replacedAt(parts.body, position.path, () => value) };
    case 'header':
      return { ...parts, headers: { ...parts.headers, [position.name]: headerValueOf(String(value)) } };
    case 'path':
      return {
        ...parts,
        params: { ...parts.params, [position.name]: String(value).replace(/\p{Cs}/gu, '\ufffd') },
      };
    case 'query':
      return { ...parts, query: { ...parts.query, [position.name]: value } };
  }
};

const maxLengthOf = (p: Position) =>
  typeof p.schema.maxLength === 'number' ? p.schema.maxLength : undefined;

/** What a hostile kind makes of an operation's valid parts, and the answer that calls for. */
interface Hostile {
  parts: Parts;
  expect: FuzzRequest['expect'];
}

/** The generator of every request kind (of `only` when given), drawn from the document. */
export const requestArbitrary = (
  doc: Document,
  tenant: SeededTenant,
  only: readonly RequestKind[] = REQUEST_KINDS,
): fc.Arbitrary<FuzzRequest> => {
  currentDocument = doc;
  const ops = operationsOf(doc);
  const secured = ops.filter((o) => o.secured);
  const withBody = ops.filter((o) => jsonBodySchema(o.op));
  const withObjectBody = withBody.filter((o) => {
    const s = resolve(doc, jsonBodySchema(o.op));
    return isObject(s.properties) && Object.keys(s.properties).length > 0;
  });
  const withRequired = withObjectBody.filter(
    (o) => ((resolve(doc, jsonBodySchema(o.op)).required as string[] | undefined) ?? []).length > 0,
  );
  const withEnumQuery = ops.filter((o) => paramsIn(o.op, 'query').some((p) => resolve(doc, p.schema).enum));
  const withPathParams = ops.filter((o) => paramsIn(o.op, 'path').length > 0);
  const values = tenant.values;
  const good = { 'x-api-key': tenant.apiKey };
  const goodCredential = fc.constantFrom<Record<string, string>>(good, good, good, {
    'x-auth-token': tenant.apiKey,
  });
  const credentialOf = (o: OperationRef) => (o.secured ? goodCredential : fc.constant({}));
  const pick = (list: OperationRef[]) => fc.constantFrom(...list);
  // A kind that finds no place for its value in one draw answers `undefined`, and is drawn again.
  const kinds: { weight: number; arbitrary: fc.Arbitrary<FuzzRequest | undefined> }[] = [];
  const add = (
    kind: RequestKind,
    weight: number,
    list: OperationRef[],
    make: (o: OperationRef) => fc.Arbitrary<FuzzRequest | undefined>,
  ) => {
    if (list.length > 0 && only.includes(kind)) kinds.push({ weight, arbitrary: pick(list).chain(make) });
  };

  add('valid', 40, ops, (o) =>
    fc
      .tuple(partsOf(doc, o, values), credentialOf(o))
      .map(([parts, credential]) => requestOf(o, 'valid', parts, credential, 'any')),
  );
  add('wrong-type', 8, withObjectBody, (o) => {
    const s = resolve(doc, jsonBodySchema(o.op));
    const properties = s.properties as Record<string, Schema>;
    const names = Object.keys(properties).filter((n) => wrongTypeOf(doc, properties[n]));
    if (names.length === 0) return fc.constant(undefined);
    return fc
      .tuple(partsOf(doc, o, values), credentialOf(o), fc.constantFrom(...names))
      .chain(([parts, credential, name]) =>
        (wrongTypeOf(doc, properties[name]) as Arb).map((wrong) =>
          requestOf(
            o,
            'wrong-type',
            { ...parts, body: { ...(parts.body as Schema), [name]: wrong } },
            credential,
            '4xx',
          ),
        ),
      );
  });
  add('missing-member', 6, withRequired, (o) => {
    const required = resolve(doc, jsonBodySchema(o.op)).required as string[];
    return fc
      .tuple(partsOf(doc, o, values), credentialOf(o), fc.constantFrom(...required))
      .map(([parts, credential, name]) => {
        const { [name]: _dropped, ...rest } = parts.body as Schema;
        return requestOf(o, 'missing-member', { ...parts, body: rest }, credential, '4xx');
      });
  });
  add('unknown-query', 4, ops, (o) =>
    fc
      .tuple(partsOf(doc, o, values), credentialOf(o), fc.stringMatching(/^[a-z][a-zA-Z]{2,10}$/))
      .filter(([, , name]) => !paramsIn(o.op, 'query').some((p) => p.name === name))
      .map(([parts, credential, name]) =>
        requestOf(
          o,
          'unknown-query',
          { ...parts, query: { ...parts.query, [`x${name}`]: '1' } },
          credential,
          '4xx',
        ),
      ),
  );
  add('bad-query-value', 2, withEnumQuery, (o) => {
    const p = paramsIn(o.op, 'query').find((q) => resolve(doc, q.schema).enum) as Parameter;
    const allowed = resolve(doc, p.schema).enum as unknown[];
    return fc
      .tuple(partsOf(doc, o, values), credentialOf(o), fc.string({ minLength: 1, maxLength: 10 }))
      .filter(([, , v]) => !allowed.includes(v))
      .map(([parts, credential, v]) =>
        requestOf(
          o,
          'bad-query-value',
          { ...parts, query: { ...parts.query, [p.name]: v } },
          credential,
          '4xx',
        ),
      );
  });
  add('bad-json', 4, withBody, (o) =>
    fc
      .tuple(
        partsOf(doc, o, values),
        credentialOf(o),
        fc.constantFrom('{"a":', '[1,2]', '"text"', 'null', '', '{"a":1}{', '\u0000'),
      )
      .map(([parts, credential, raw]) =>
        requestOf(o, 'bad-json', parts, credential, '4xx', {
          body: raw,
          headers: { 'content-type': 'application/json', ...credential },
        }),
      ),
  );
  add('wrong-media-type', 2, withBody, (o) =>
    fc
      .tuple(partsOf(doc, o, values), credentialOf(o), fc.constantFrom('text/plain', 'application/xml'))
      .map(([parts, credential, type]) =>
        requestOf(o, 'wrong-media-type', parts, credential, '4xx', {
          body: JSON.stringify(parts.body),
          headers: { 'content-type': type, ...credential },
        }),
      ),
  );
  add('long-path-param', 3, withPathParams, (o) => {
    const names = paramsIn(o.op, 'path').map((p) => p.name);
    return fc
      .tuple(
        partsOf(doc, o, values),
        credentialOf(o),
        fc.constantFrom(...names),
        fc.integer({ min: 65, max: 300 }),
      )
      .map(([parts, credential, name, length]) =>
        requestOf(
          o,
          'long-path-param',
          { ...parts, params: { ...parts.params, [name]: 'a'.repeat(length) } },
          credential,
          '4xx',
        ),
      );
  });
  add('no-credential', 5, secured, (o) =>
    partsOf(doc, o, values).map((parts) => requestOf(o, 'no-credential', parts, {}, 401)),
  );
  add('wrong-credential', 6, secured, (o) =>
    fc
      .tuple(
        partsOf(doc, o, values),
        fc.constantFrom<Record<string, string>>(
          { 'x-api-key': tenant.revokedKey },
          { 'x-api-key': `sk-${'A'.repeat(43)}` },
          { 'x-api-key': 'not-a-key' },
          { 'x-jwt-token': 'e30.e30.sig' },
          { 'x-jwt-token': 'garbage', 'x-api-key': tenant.apiKey },
          { 'x-auth-token': 'sk-nope' },
          { 'x-auth-token': 'a.b.c' },
        ),
      )
      .map(([parts, credential]) => requestOf(o, 'wrong-credential', parts, credential, 401)),
  );
  // Operations that need one scope (a route open to any credential, the MCP server, refuses inside its answer).
  add(
    'limited-scope',
    4,
    secured.filter((o) => {
      const scope = o.op['x-required-scope'];
      return scope !== undefined && scope !== 'company:read';
    }),
    (o) =>
      partsOf(doc, o, values).map((parts) =>
        requestOf(o, 'limited-scope', parts, { 'x-api-key': tenant.limitedKey }, 403),
      ),
  );
  const pathItems = Object.entries(doc.paths).flatMap(([template, item]) => {
    const missing = METHODS.filter((m) => !item[m]);
    const present = METHODS.find((m) => item[m]);
    if (!present || missing.length === 0) return [];
    const o = { method: present.toUpperCase(), template, op: item[present] as Operation, secured: false };
    return missing.map((m) => ({ o, method: m.toUpperCase() }));
  });
  if (pathItems.length > 0 && only.includes('wrong-method')) {
    kinds.push({
      weight: 5,
      arbitrary: fc
        .constantFrom(...pathItems)
        .chain(({ o, method }) =>
          fc
            .tuple(partsOf(doc, o, values), fc.boolean())
            .map(([parts, credentialed]) =>
              requestOf(
                { ...o, method },
                'wrong-method',
                { ...parts, body: method === 'GET' || method === 'DELETE' ? undefined : {} },
                credentialed ? good : {},
                405,
              ),
            ),
        ),
    });
  }

  // Hostile families (`./hostile.ts`), each at every position of a request where it fits. Most answers may
  // be a success or a refusal (`any`); what the API refuses by rule is expected as a 4xx: `__proto__` in a
  // body, any body nested deeper than 32 levels, an unknown query parameter, a string over its limit by
  // both counts where that limit is the only schema (`exact`), a URL that is not taken as written.
  const addHostile = (
    kind: RequestKind,
    weight: number,
    list: OperationRef[],
    build: (o: OperationRef, parts: Parts) => fc.Arbitrary<Hostile> | undefined,
  ) =>
    add(kind, weight, list, (o) =>
      fc.tuple(partsOf(doc, o, values), credentialOf(o)).chain(([parts, credential]) => {
        const hostile: fc.Arbitrary<Hostile | undefined> = build(o, parts) ?? fc.constant(undefined);
        return hostile.map((h) => h && requestOf(o, kind, h.parts, credential, h.expect));
      }),
    );
  const atStrings = (
    o: OperationRef,
    parts: Parts,
    accept: (p: Position) => boolean,
    valuesFor: (p: Position) => readonly { value: string; expect: FuzzRequest['expect'] }[],
  ): fc.Arbitrary<Hostile> | undefined => {
    const positions = stringPositions(doc, o, parts).filter(accept);
    if (positions.length === 0) return undefined;
    return fc
      .constantFrom(...positions)
      .chain((p) =>
        fc
          .constantFrom(...valuesFor(p))
          .map(({ value, expect }) => ({ parts: withValueAt(parts, p, value), expect })),
      );
  };
  const anyAnswer = (list: readonly string[]) => list.map((value) => ({ value, expect: 'any' as const }));
  const declaring = (test: (name: string) => boolean) =>
    withBody.filter((o) => declaredNames(doc, jsonBodySchema(o.op)).some(test));

  addHostile('prototype-member', 6, ops, (o, parts) => {
    const name = fc.constantFrom(...PROTOTYPE_NAMES);
    const objects = bodyPositions(doc, jsonBodySchema(o.op), parts.body).filter((p) =>
      isObject(valueAt(parts.body, p.path)),
    );
    const inBody = (positions: BodyPosition[]) =>
      fc.tuple(fc.constantFrom(...positions), name, fc.constantFrom(...PROTOTYPE_VALUES)).map(
        ([p, n, value]): Hostile => ({
          parts: {
            ...parts,
            body: replacedAt(parts.body, p.path, (old) => withMember(old as Schema, n, value)),
          },
          expect: n === '__proto__' ? '4xx' : 'any',
        }),
      );
    const inQuery = name.map(
      (n): Hostile => ({ parts: { ...parts, query: withMember(parts.query, n, '1') }, expect: '4xx' }),
    );
    const inHeader = fc.tuple(name, fc.constantFrom('1', '{}', 'x')).map(
      ([n, value]): Hostile => ({
        parts: { ...parts, headers: withMember(parts.headers, n, value) },
        expect: 'any',
      }),
    );
    return fc.oneof(
      ...(objects.length > 0 ? [{ weight: 3, arbitrary: inBody(objects) }] : []),
      inQuery,
      inHeader,
    );
  });
  addHostile('deep-nesting', 4, withBody, (o, parts) =>
    fc
      .tuple(
        fc.constantFrom(...bodyPositions(doc, jsonBodySchema(o.op), parts.body)),
        fc.oneof(fc.constantFrom(...NESTING_DEPTHS), fc.integer({ min: 33, max: MAX_NESTING_DEPTH })),
        fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
      )
      .map(([p, depth, container]) => ({
        parts: withValueAt(parts, p, JSON.parse(nestedJsonText(depth, container))),
        expect: '4xx',
      })),
  );
  addHostile('markdown-nesting', 2, declaring(isMarkdownName), (o, parts) =>
    atStrings(
      o,
      parts,
      (p) => isMarkdownName(p.name),
      (p) => anyAnswer(markdownNestings(maxLengthOf(p))),
    ),
  );
  addHostile('blank-string', 5, ops, (o, parts) =>
    atStrings(
      o,
      parts,
      () => true,
      () => anyAnswer(BLANK_STRINGS),
    ),
  );
  addHostile('astral-string', 5, ops, (o, parts) =>
    atStrings(
      o,
      parts,
      () => true,
      (p) =>
        astralStrings(maxLengthOf(p)).map(({ value, overLimit }) => ({
          value,
          expect: overLimit && p.exact ? '4xx' : 'any',
        })),
    ),
  );
  addHostile('url-control', 3, declaring(isUrlName), (o, parts) =>
    atStrings(
      o,
      parts,
      (p) => isUrlName(p.name),
      () => HOSTILE_URLS.map((value) => ({ value, expect: '4xx' as const })),
    ),
  );
  return fc.oneof(...kinds).filter((r): r is FuzzRequest => r !== undefined);
};

// ---------------------------------------------------------------------------------------------------------
// Checks.

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

interface CheckResult {
  check: string;
  ok: boolean;
  detail?: string;
}

const mediaType = (headers: Headers) =>
  (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const declaredResponse = (doc: Document, op: Operation, status: number): ResponseObject | undefined => {
  const r = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  if (!r) return undefined;
  const response = deref<ResponseObject>(doc, r);
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, h]) => [name, deref<{ required?: boolean }>(doc, h)]),
  );
  return { ...response, headers };
};

export const checkAnswer = (
  doc: Document,
  ajv: Ajv,
  validators: Map<string, ValidateFunction>,
  request: FuzzRequest,
  answer: Answer,
): CheckResult[] => {
  const results: CheckResult[] = [];
  const check = (name: string, ok: boolean, detail?: string) =>
    results.push({ check: name, ok, ...(ok || detail === undefined ? {} : { detail }) });
  const { status, headers } = answer;
  const item = doc.paths[request.template] ?? {};
  const op = request.kind === 'wrong-method' ? undefined : item[request.method.toLowerCase()];
  let body: unknown;
  let parsed = true;
  try {
    body = answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    parsed = false;
  }

  check('no-5xx', status < 500 || (status === 501 && op !== undefined && op.responses['501'] !== undefined));
  check('x-request-id', Boolean(headers.get('x-request-id')));

  if (request.kind === 'wrong-method') {
    const expected = METHODS.filter((m) => item[m])
      .map((m) => m.toUpperCase())
      .sort();
    const allow = (headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim().toUpperCase())
      .filter((m) => m !== '' && m !== 'HEAD' && m !== 'OPTIONS')
      .sort();
    check(
      'method-not-allowed',
      status === 405 && allow.join(',') === expected.join(','),
      `Allow: ${headers.get('allow')} (expected ${expected.join(', ')})`,
    );
  }

  const response = op ? declaredResponse(doc, op, status) : undefined;
  if (op) {
    check('status-declared', response !== undefined, `declared: ${Object.keys(op.responses).join(', ')}`);
  }
  if (op && response) {
    const type = mediaType(headers);
    const content = response.content ?? {};
    const declaredTypes = Object.keys(content);
    const typeOk = declaredTypes.length === 0 ? answer.text === '' : declaredTypes.includes(type);
    check(
      'content-type-declared',
      typeOk,
      `content-type ${type || '(none)'}; declared: ${declaredTypes.join(', ')}`,
    );
    // Bodies of JSON media types are checked against their schema; a page or a script is not JSON.
    const json = type === 'application/json' || type.endsWith('+json');
    const schema = content[type]?.schema;
    if (typeOk && schema && json) {
      const key = `${request.method} ${request.template} ${status} ${type}`;
      let validate = validators.get(key);
      if (!validate) {
        validate = ajv.compile(toJsonSchema(schema) as Schema);
        validators.set(key, validate);
      }
      const valid = parsed && validate(body);
      check(
        'body-schema',
        valid,
        parsed
          ? ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' }).slice(0, 400)
          : 'body is not JSON',
      );
    }
    const declaredHeaders = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
    const undeclared = API_HEADERS.filter((h) => headers.has(h) && !declaredHeaders.includes(h));
    const missing = Object.entries(response.headers ?? {})
      .filter(([h, d]) => d.required && !headers.has(h))
      .map(([h]) => h);
    check(
      'headers-declared',
      undeclared.length === 0 && missing.length === 0,
      [
        ...(undeclared.length ? [`sent but not declared: ${undeclared.join(', ')}`] : []),
        ...(missing.length ? [`declared required but not sent: ${missing.join(', ')}`] : []),
      ].join('; '),
    );
  }

  if (status >= 400 && status < 500) {
    const problem = isObject(body) ? body : {};
    const problems: string[] = [];
    if (mediaType(headers) !== 'application/problem+json')
      problems.push(`content-type ${mediaType(headers)}`);
    if (typeof problem.code !== 'string' || problem.code === '') problems.push('no code');
    else if (problem.type !== `urn:problem-type:${problem.code}`)
      problems.push(`type ${String(problem.type)}`);
    if (typeof problem.title !== 'string' || typeof problem.detail !== 'string')
      problems.push('title or detail');
    if (problem.status !== status) problems.push(`body status ${String(problem.status)}`);
    if (!problem.requestId || problem.requestId !== headers.get('x-request-id')) problems.push('requestId');
    check('problem-json', problems.length === 0, problems.join('; '));
    const codes = response ? declaredCodes(doc, response.content?.[mediaType(headers)]?.schema) : undefined;
    if (codes && typeof problem.code === 'string') {
      check('code-declared', codes.includes(problem.code), `declared for ${status}: ${codes.join(', ')}`);
    }
  }
  if (status === 429) check('retry-after', headers.has('retry-after'));

  if (request.expect !== 'any') {
    // A malformed request to an operation that is not available yet may get its 501 instead of a 4xx.
    const ok =
      request.expect === '4xx'
        ? (status >= 400 && status < 500) || status === 501
        : status === request.expect;
    check('refused', ok, `expected ${request.expect} for ${request.kind}`);
  }
  return results;
};

// ---------------------------------------------------------------------------------------------------------
// Runner.

const problemCode = (text: string): string => {
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) && typeof v.code === 'string' ? v.code : '';
  } catch {
    return '';
  }
};

const describeRequest = (r: FuzzRequest) => {
  const headers = Object.entries(r.headers)
    .map(([k, v]) => `${k}: ${k.startsWith('x-') && v.length > 12 ? `${v.slice(0, 8)}…` : v}`)
    .join(', ');
  return `${r.kind}: ${r.method} ${r.path} [${headers}]${r.body === undefined ? '' : ` ${r.body.slice(0, 300)}`}`;
};

export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const started = Date.now();
  const doc =
    options.document ?? ((await (await fetch(`${options.apiUrl}/v1/openapi.json`)).json()) as Document);
  const ajv = makeAjv(doc);
  const validators = new Map<string, ValidateFunction>();
  const requests = fc.sample(requestArbitrary(doc, options.tenant, options.kinds), {
    seed: options.seed,
    numRuns: options.count,
  });
  const report: FuzzReport = {
    requests: 0,
    retriedTransport: 0,
    elapsedMs: 0,
    byStatus: {},
    byKind: {},
    byCheck: {},
    findings: [],
  };
  const findings = new Map<string, Finding>();
  const record = (
    check: string,
    ok: boolean,
    request: FuzzRequest,
    status: number,
    code: string,
    detail: string,
  ) => {
    const counts = report.byCheck[check] ?? { passed: 0, failed: 0 };
    report.byCheck[check] = counts;
    if (ok) {
      counts.passed++;
      return;
    }
    counts.failed++;
    const operation = `${request.method} ${request.template}`;
    const key = `${check}|${operation}|${status}|${code}`;
    const existing = findings.get(key);
    if (existing) existing.count++;
    else findings.set(key, { check, operation, status, code, count: 1, example: detail });
  };

  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++] as FuzzRequest;
      let answer: Answer | undefined;
      const failures: string[] = [];
      // A connection the client finds closed under it (a keep-alive race) is tried once more; a request
      // that fails twice is a finding.
      for (let attempt = 0; attempt < 2 && !answer; attempt++) {
        try {
          const response = await fetch(`${options.apiUrl}${request.path}`, {
            method: request.method,
            headers: request.headers,
            body: request.body,
            signal: AbortSignal.timeout(30_000),
          });
          answer = { status: response.status, headers: response.headers, text: await response.text() };
        } catch (error) {
          const cause = (error as Error).cause;
          failures.push(`${String(error)}${cause ? ` (${String(cause)})` : ''}`);
        }
      }
      report.retriedTransport += answer && failures.length > 0 ? 1 : 0;
      if (!answer) {
        record('transport', false, request, 0, '', `${describeRequest(request)} → ${failures.join('; ')}`);
        report.requests++;
        continue;
      }
      report.requests++;
      report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
      report.byKind[request.kind] = (report.byKind[request.kind] ?? 0) + 1;
      const code = problemCode(answer.text);
      for (const result of checkAnswer(doc, ajv, validators, request, answer)) {
        record(
          result.check,
          result.ok,
          request,
          answer.status,
          // A header missing from a response's declaration is one finding per status, whatever the code.
          result.check === 'headers-declared' ? '' : code,
          `${describeRequest(request)} → ${answer.status} ${answer.text.slice(0, 300)}${result.detail ? ` | ${result.detail}` : ''}`,
        );
      }
      options.onProgress?.(report.requests);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));
  report.findings = [...findings.values()].sort(
    (a, b) => a.check.localeCompare(b.check) || a.operation.localeCompare(b.operation) || a.status - b.status,
  );
  report.elapsedMs = Date.now() - started;
  return report;
};

/** One line per finding: check, operation, status, code, how many requests, one example. */
export const findingLines = (findings: Finding[]): string[] =>
  findings.map(
    (f) =>
      `${f.check}: ${f.operation} → ${f.status}${f.code ? ` ${f.code}` : ''} (${f.count}x) e.g. ${f.example}`,
  );

export const formatReport = (report: FuzzReport): string => {
  const lines = [
    `${report.requests} requests in ${(report.elapsedMs / 1000).toFixed(1)} s` +
      (report.retriedTransport ? ` (${report.retriedTransport} sent again after a lost connection)` : ''),
    `by status: ${Object.entries(report.byStatus)
      .map(([s, n]) => `${s}=${n}`)
      .join(' ')}`,
    `by kind: ${Object.entries(report.byKind)
      .map(([s, n]) => `${s}=${n}`)
      .join(' ')}`,
    'by check (passed/failed):',
    ...Object.entries(report.byCheck)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, { passed, failed }]) => `  ${c}: ${passed}/${failed}`),
    `${report.findings.length} distinct finding(s)`,
    ...findingLines(report.findings).map((l) => `  ${l}`),
  ];
  return `${lines.join('\n')}\n`;
};
