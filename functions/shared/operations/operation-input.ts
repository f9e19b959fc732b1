import { AppError, ValidationError } from '../errors';
import type { RouteDefinition } from '../routes/route-definition';
import * as z from '../zod';

/**
 * The one object an operation takes at the doors that are not HTTP (an MCP tool, a workflow step's `with`):
 * its path parameters, query members and body members side by side, under their input names (`inputNames`),
 * with a body that is not an object of members under `payload`. Built from the route's own schemas, once
 * per route, so every door holds the same object and no input is declared twice. Query members parse text and
 * accept the JSON value too (`routes/schemas.ts` `queryInteger`, `queryBoolean`), so `limit: 5` works here.
 */
const inputs = new WeakMap<RouteDefinition, z.ZodType>();

export const operationInput = (route: RouteDefinition): z.ZodType => {
  let input = inputs.get(route);
  if (!input) {
    input = buildInput(route);
    inputs.set(route, input);
  }
  return input;
};

/** Whether a schema is an object of members (zod exports the class as a type only). */
export const isObjectSchema = (schema: z.ZodType): schema is z.ZodObject => schema._zod.def.type === 'object';

/** The input member a parameter of the route travels as. */
const memberOf = (route: RouteDefinition, name: string): string => route.inputNames?.[name] ?? name;

const buildInput = (route: RouteDefinition): z.ZodType => {
  const shape: Record<string, z.ZodType> = {};
  for (const part of [route.params, route.query]) {
    for (const [name, schema] of Object.entries(part?.shape ?? {})) shape[memberOf(route, name)] = schema;
  }
  const { body, payload } = route;
  if (body === undefined) return z.object(shape).strict();
  // Nothing beside the body: the input is the body's own schema, refusing and accepting what the route does.
  if (Object.keys(shape).length === 0 && payload === undefined) return body;
  if (payload !== undefined) return z.object({ ...shape, [payload]: body }).strict();
  if (isObjectSchema(body)) return z.object({ ...shape, ...body.shape }).strict();
  // A body of alternatives (a message of one kind or another): the members beside it, and it decides the rest.
  return z.intersection(z.object(shape), body);
};

/** What the route's handler takes, split back out of a parsed input. */
export interface HttpParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

export const httpPartsOf = (route: RouteDefinition, input: Record<string, unknown>): HttpParts => {
  const rest: Record<string, unknown> = { ...input };
  const take = (part: z.ZodObject | undefined) => {
    const taken: Record<string, unknown> = {};
    for (const name of Object.keys(part?.shape ?? {})) {
      const member = memberOf(route, name);
      if (member in rest) taken[name] = rest[member];
      delete rest[member];
    }
    return taken;
  };
  const params = take(route.params);
  const query = take(route.query);
  const body = route.body === undefined ? undefined : route.payload ? rest[route.payload] : rest;
  return { params, query, body };
};

/**
 * A pointer of an HTTP request (`/body/name`, `/params/_id`, `/query/limit`) as a pointer into the operation's
 * input (`/item/name`, `/id`, `/limit`): a refusal at another door points into what that caller sent.
 */
export const inputPointerOf = (route: RouteDefinition, pointer: string): string => {
  const [, part, name, ...rest] = pointer.split('/');
  if (part === 'body') {
    const inner = pointer.slice('/body'.length);
    return route.payload ? `/${route.payload}${inner}` : inner;
  }
  if ((part === 'params' || part === 'query') && name !== undefined) {
    return ['', memberOf(route, name), ...rest].join('/');
  }
  return pointer;
};

/** The error with its pointers into the operation's input (`inputPointerOf`); other errors unchanged. */
export const withInputPointers = (route: RouteDefinition, error: unknown): unknown => {
  if (!(error instanceof ValidationError)) return error;
  const errors = (error.errors ?? []).map((e) => ({ ...e, pointer: inputPointerOf(route, e.pointer) }));
  return Object.assign(new ValidationError(errors, error.message), { cause: error });
};

/** An operation whose answer is not JSON cannot be offered at a door that answers a value. */
export const refuseRawAnswer = (route: RouteDefinition): never => {
  throw new AppError('internal', `${route.operationId} answers a raw body`);
};
