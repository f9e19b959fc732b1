import { type SdkMethodFacts, sdkMethodFacts } from './sdk-methods';

/**
 * Reads what the client needs at run time out of the OpenAPI document: for each operation its method and
 * path, whether it declares the `Idempotency-Key` header (the client then sends a fresh key with every call),
 * and whether it is a paged list (the client then offers an async iterator over it).
 *
 * The types of `openapi-typescript` vanish at run time, so these facts are derived here, from the same
 * document and at the same build step, instead of being listed by hand: a list another change converts to
 * the paging rule becomes iterable at the next build without a line of SDK code.
 *
 * The paging rule: an operation is paged when it takes a cursor (a query parameter, or a property of its
 * JSON body for `POST …/list`) and its success answer holds the next cursor beside exactly one array, the
 * page's elements. The rule's names are `cursor` in and `nextCursor` out, for every list of the API (the
 * events list also keeps its deprecated `after` / `next` aliases, which the client never uses).
 */

export interface PageRule {
  /** Where the cursor goes in: the query string or the JSON body. */
  cursorIn: 'query' | 'body';
  /** Name of the cursor input. */
  cursor: string;
  /** Name of the answer's property holding the next cursor (null or absent on the last page). */
  next: string;
  /** Name of the answer's array property: the page's elements. */
  items: string;
}

export interface OperationFacts {
  method: string;
  path: string;
  idempotencyKey: boolean;
  page: PageRule | null;
  /** The operation's resource method (`x-sdk-method`; `sdk-methods.ts`), or null when the SDK offers none. */
  sdk: SdkMethodFacts | null;
}

/** Cursor names, in then out: the one paging rule. */
export const CURSOR_PAIRS: readonly { cursor: string; next: string }[] = [
  { cursor: 'cursor', next: 'nextCursor' },
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/...`) to the object it names. */
export const resolve = (document: Json, value: unknown): Json | undefined => {
  if (!isObject(value)) return undefined;
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  let target: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    target = isObject(target) ? target[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  }
  return resolve(document, target);
};

const jsonSchema = (document: Json, holder: unknown): Json | undefined => {
  const content = resolve(document, holder)?.content;
  return isObject(content)
    ? resolve(document, resolve(document, content['application/json'])?.schema)
    : undefined;
};

const properties = (document: Json, schema: Json | undefined): Record<string, Json> => {
  const props = schema?.properties;
  if (!isObject(props)) return {};
  return Object.fromEntries(
    Object.entries(props).map(([name, value]) => [name, resolve(document, value) ?? {}]),
  );
};

const successSchema = (document: Json, operation: Json): Json | undefined => {
  const responses = resolve(document, operation.responses) ?? {};
  const status = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
  return status === undefined ? undefined : jsonSchema(document, responses[status]);
};

const bodyOf = (document: Json, operation: Json): 'required' | 'optional' | null => {
  const body = resolve(document, operation.requestBody);
  if (body === undefined) return null;
  return body.required === true ? 'required' : 'optional';
};

/** The final states (`x-final-states`) of the `status` of the answer's member `member`. */
const finalStates = (document: Json, operation: Json, member: string): string[] | undefined => {
  const status = properties(
    document,
    properties(document, successSchema(document, operation))[member],
  ).status;
  const final = status?.['x-final-states'];
  return Array.isArray(final) ? final.map(String) : undefined;
};

const pageRule = (
  document: Json,
  operationId: string,
  parameters: Json[],
  operation: Json,
): PageRule | null => {
  const query = new Set(parameters.filter((p) => p.in === 'query').map((p) => String(p.name)));
  const body = properties(document, jsonSchema(document, operation.requestBody));
  const answer = properties(document, successSchema(document, operation));
  for (const pair of CURSOR_PAIRS) {
    const cursorIn = query.has(pair.cursor) ? 'query' : pair.cursor in body ? 'body' : undefined;
    if (cursorIn === undefined || !(pair.next in answer)) continue;
    const arrays = Object.entries(answer)
      .filter(([, schema]) => schema.type === 'array')
      .map(([name]) => name);
    const [items] = arrays;
    if (arrays.length !== 1 || items === undefined) {
      throw new Error(
        `${operationId} takes \`${pair.cursor}\` and answers \`${pair.next}\`, but its answer has ${arrays.length} array properties (${arrays.join(', ')}): the paging rule needs exactly one`,
      );
    }
    return { cursorIn, cursor: pair.cursor, next: pair.next, items };
  }
  return null;
};

/** The facts of every operation of the document that has an `operationId`, keyed by it. */
export const operationTable = (document: Json): Record<string, OperationFacts> => {
  const table: Record<string, OperationFacts> = {};
  for (const [path, pathItemValue] of Object.entries(resolve(document, document.paths) ?? {})) {
    const pathItem = resolve(document, pathItemValue) ?? {};
    const shared = Array.isArray(pathItem.parameters) ? pathItem.parameters : [];
    for (const method of METHODS) {
      const operation = resolve(document, pathItem[method]);
      if (operation === undefined || typeof operation.operationId !== 'string') continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      const parameters = [...shared, ...own]
        .map((p) => resolve(document, p))
        .filter((p): p is Json => p !== undefined);
      table[operation.operationId] = {
        method,
        path,
        idempotencyKey: parameters.some(
          (p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
        ),
        page: pageRule(document, operation.operationId, parameters, operation),
        sdk: sdkMethodFacts(operation, path, parameters, bodyOf(document, operation), (member) =>
          finalStates(document, operation, member),
        ),
      };
    }
  }
  return table;
};
