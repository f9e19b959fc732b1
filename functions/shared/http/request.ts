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

const readJsonBody = (event: APIGatewayProxyEvent, headers: Record<string, string>): unknown => {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(raw, 'utf8') > MAX_JSON_BODY_BYTES) {
    throw new AppError('payload_too_large', `The request body exceeds ${MAX_JSON_BODY_BYTES} bytes.`);
  }
  const contentType = headers['content-type'] ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json.',
    );
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ValidationError([{ pointer: '/body', message: 'The body is not valid JSON.' }]);
  }
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
  const query = parsePart('query', route.query?.strict(), event.queryStringParameters ?? {});
  let body: unknown;
  if (route.body) {
    const json = readJsonBody(event, headers);
    if (json === undefined) errors.push({ pointer: '/body', message: 'A JSON body is required.' });
    else body = parsePart('body', route.body, json);
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { params, query, body };
};
