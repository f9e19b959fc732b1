import type { APIGatewayProxyEvent } from 'aws-lambda';
import { AppError, type FieldError, fieldErrors, ValidationError } from '../errors';
import type { RouteDefinition } from '../routes/route-table';
import type * as z from '../zod';

/** Largest JSON body a route accepts (API Gateway's own payload limit is 10 MB). */
export const MAX_JSON_BODY_BYTES = 1_048_576;

export const lowercaseHeaders = (headers: APIGatewayProxyEvent['headers']): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
};

/** Deepest nesting of arrays and objects a JSON body may have (the body itself is depth 1). */
export const MAX_JSON_DEPTH = 32;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Numbers a body may hold: 0, or a magnitude from 1e-130 to below 1e126 (what DynamoDB stores; JSON numbers
 * beyond it, `1e999` included, would otherwise fail deep in a write or a query).
 */
export const MIN_NUMBER_MAGNITUDE = 1e-130;
export const MAX_NUMBER_MAGNITUDE = 1e126;

const storableNumber = (n: number): boolean =>
  n === 0 || (Math.abs(n) >= MIN_NUMBER_MAGNITUDE && Math.abs(n) < MAX_NUMBER_MAGNITUDE);

/**
 * A member name no body may use: `__proto__` is the one name that JavaScript object assignment turns into a
 * prototype change, so a copy of the body (a schema parse, `Object.assign`) would silently drop it. Every
 * other name (`constructor`, `toString`, …) is data and is stored exactly.
 */
export const FORBIDDEN_MEMBER_NAME = '__proto__';

/**
 * The first problem of a parsed body, with its JSON pointer under `/body`: a value nested deeper than
 * `MAX_JSON_DEPTH`, a number outside the storable range, or a member named `__proto__`.
 */
export const bodyProblem = (value: unknown): { pointer: string; message: string } | undefined => {
  // Iterative, with an explicit stack: a hostile body never costs more than its own size.
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: '/body', depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value === 'number' && !storableNumber(next.value)) {
      return {
        pointer: next.pointer,
        message: `must be 0 or have a magnitude from ${MIN_NUMBER_MAGNITUDE} to below ${MAX_NUMBER_MAGNITUDE}`,
      };
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > MAX_JSON_DEPTH) {
      return {
        pointer: next.pointer,
        message: `is nested deeper than ${MAX_JSON_DEPTH} levels (the most a body may have)`,
      };
    }
    for (const [key, child] of Object.entries(next.value)) {
      const segment = key.replaceAll('~', '~0').replaceAll('/', '~1');
      if (key === FORBIDDEN_MEMBER_NAME) {
        return { pointer: `${next.pointer}/${segment}`, message: 'a member may not be named __proto__' };
      }
      stack.push({ value: child, pointer: `${next.pointer}/${segment}`, depth: next.depth + 1 });
    }
  }
  return undefined;
};

/**
 * Reads the JSON body: at most `MAX_JSON_BODY_BYTES`, `Content-Type: application/json` (or `+json`),
 * strictly UTF-8 (API Gateway hands every body over as bytes, see `binaryMediaTypes` in the API stack, so
 * invalid UTF-8 is refused instead of being stored as U+FFFD), valid JSON, nested at most `MAX_JSON_DEPTH`
 * deep, its numbers within the storable range. Every refusal is problem+json with a pointer.
 *
 * `@middy/http-json-body-parser` was weighed for this: it decodes with replacement characters, answers
 * malformed JSON with 422 and carries neither a size nor a nesting limit, so our answers would get worse;
 * this function stays, and is the one place bodies are parsed.
 */
const readJsonBody = (event: APIGatewayProxyEvent, headers: Record<string, string>): unknown => {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.length > MAX_JSON_BODY_BYTES) {
    throw new AppError('payload_too_large', `The request body exceeds ${MAX_JSON_BODY_BYTES} bytes.`);
  }
  const contentType = headers['content-type'] ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json.',
    );
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ValidationError([{ pointer: '/body', message: 'The body is not valid UTF-8.' }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ValidationError([{ pointer: '/body', message: 'The body is not valid JSON.' }]);
  }
  const problem = bodyProblem(json);
  if (problem) throw new ValidationError([problem]);
  return json;
};

/**
 * An operation that declares no body (a cancel, a retry, a delete, a read) takes none: a body that is not
 * empty is refused with 400 `validation_failed`, with a pointer per member when it is a JSON object
 * (`/body/x`), else at `/body`, whatever its content type. An empty body, or the empty object `{}` that some
 * clients send with every POST, is accepted: it asks for nothing.
 */
const NO_BODY_MESSAGE = 'This operation takes no body: send none (or `{}`).';
const unexpectedBodyProblems = (event: APIGatewayProxyEvent): FieldError[] => {
  if (event.body === null || event.body === undefined || event.body === '') return [];
  // Beyond the longest body worth reading member by member, the answer is the same without reading it.
  const raw = event.body.length > 4096 ? undefined : event.body;
  const text =
    raw === undefined ? undefined : event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text !== undefined && text.trim() === '') return [];
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return [{ pointer: '/body', message: NO_BODY_MESSAGE }];
  return Object.keys(json).map((name) => ({
    pointer: `/body/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`,
    message: `is not a member: ${NO_BODY_MESSAGE}`,
  }));
};

/**
 * Query parameters as the route declares them: an unknown name, or a name given more than once (every
 * parameter of the API is single-valued), is refused with a pointer instead of being ignored or "last wins".
 */
const readQuery = (route: RouteDefinition, event: APIGatewayProxyEvent, errors: FieldError[]) => {
  const declared = new Set(Object.keys(route.query?.shape ?? {}));
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  for (const name of new Set([...Object.keys(single), ...Object.keys(multi)])) {
    const pointer = `/query/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!declared.has(name)) errors.push({ pointer, message: 'is not a parameter of this operation' });
    else if (((Object.hasOwn(multi, name) ? multi[name] : undefined)?.length ?? 1) > 1)
      errors.push({ pointer, message: 'must be given once' });
  }
  return single;
};

export interface ParsedRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Parses path parameters, query and body against the route's schemas; every violation is reported. */
export const parseRequest = (
  route: RouteDefinition,
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
): ParsedRequest => {
  const errors: FieldError[] = [];
  const parsePart = (part: string, schema: z.ZodType | undefined, value: unknown): unknown => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    errors.push(...fieldErrors(part, result.error));
    return undefined;
  };
  const params = parsePart('params', route.params, event.pathParameters ?? {});
  const query = parsePart('query', route.query, readQuery(route, event, errors));
  let body: unknown;
  if (route.body) {
    const json = readJsonBody(event, headers);
    if (json === undefined) errors.push({ pointer: '/body', message: 'A JSON body is required.' });
    else body = parsePart('body', route.body, json);
  } else errors.push(...unexpectedBodyProblems(event));
  if (errors.length > 0) throw new ValidationError(errors);
  return { params, query, body };
};
