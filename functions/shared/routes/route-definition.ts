import type { ErrorCode } from '../errors';
import { identifierField } from '../fields';
import { keepGetters, lazy } from '../lazy';
import type { Scope } from '../types/scopes';
import * as z from '../zod';

/**
 * The shape of a route of the route table, the route groups, and the path parameters several areas share.
 * Each area's routes live in their own module (`<area>-routes.ts`); `route-table.ts` joins them.
 */
export const ROUTE_GROUPS = [
  'public',
  'company',
  'contacts',
  'dynadata',
  'storage',
  'transcriptions',
  'transcodes',
  'speech',
  'usage',
  'workflows',
  'mcp',
  'events',
] as const;

export type RouteGroup = (typeof ROUTE_GROUPS)[number];
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  path: `/v1/${string}`;
  group: RouteGroup;
  operationId: string;
  /**
   * The operation's method in the SDK (`sdk/`), published as `x-sdk-method` (decision 0043): dot-separated
   * lowerCamel names, the resource path then the verb (`transcodes.create`, `workflows.runs.cancel`); a
   * segment `name(param)` binds a path parameter once (`dynadata.items(type).list`), the other path parameters
   * are the method's leading arguments in path order. `waitUntilDone` names the answer's member whose `status`
   * the SDK's waiter polls until it reaches one of the final states its schema marks (`x-final-states`).
   * `null`: not offered by the SDK (the MCP endpoint, the documentation page and its assets).
   */
  sdk: SdkMethod | { method: SdkMethod; waitUntilDone: string } | null;
  summary: string;
  description?: string;
  tag: string;
  /**
   * Scope the credential must hold, `public` for routes that take no authentication, or `authenticated` for a
   * route that takes any valid credential and checks finer scopes itself (the MCP server checks each tool's).
   */
  scope: Scope | 'public' | 'authenticated';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  /** HTTP status of a successful call. */
  successStatus?: number;
  /** Other successful answers (a sync run that continued asynchronously answers 202). */
  alsoAnswers?: readonly { status: number; description: string; response: z.ZodType }[];
  /**
   * What the route does with `Idempotency-Key` (every POST says; GET and DELETE are idempotent by definition and
   * ignore it): `keyed`, it honours the key (`http/idempotency.ts`: a replay answers the stored answer);
   * `repeatable`, it changes nothing (a read or a computation sent as POST), so a repeat is already safe and
   * the key is accepted and unused; `refused`, it cannot honour a key (one MCP message may carry several
   * tool calls) and answers 400 `idempotency_key_not_supported` rather than ignore one.
   */
  idempotency?: 'keyed' | 'repeatable' | 'refused';
  /**
   * Top-level members of the answer shown once, in the first answer only (a signing secret): the answer kept
   * with an `Idempotency-Key` holds `null` in their place, so no secret is stored at rest with the key, and a
   * replay (`Idempotent-Replayed: true`) answers `null` for them, whether the resource still exists or not.
   * Their schemas are nullable.
   */
  shownOnce?: readonly string[];
  /**
   * A single-resource read: the answer carries an `ETag` (`etag.ts`), and `If-None-Match` with that tag answers
   * 304 without a body.
   */
  etag?: true;
  /**
   * Query parameters kept for clients written against them, each with its deprecation: the document marks the
   * parameter `deprecated: true` and declares `Deprecation` and `Sunset` on the answers, and a request that
   * sends it is answered with both (`http/deprecation.ts`). Deprecating a parameter is one entry here.
   */
  deprecatedQuery?: Readonly<Record<string, Deprecation>>;
  /**
   * A write whose answer holds a resource whose read declares `etag` (the `ETag` of that read: `etag.ts`): the
   * answer carries the tag of the resource as written, so the next conditional write can name it without a read.
   * `true`: the whole body is the resource as its read answers it (a Dynadata item); a member name: the resource
   * is `{ [member]: … }` of the body, as its read answers it (`{ endpoint }` beside a shown-once `secret`).
   */
  answersEtag?: true | string;
  /** A write of one resource that honours `If-Match` with the tag its read answers (412 on a mismatch). */
  ifMatch?: true;
  /** A write that creates only under `If-None-Match: *` (412 `precondition_failed` when the resource exists). */
  createOnlyIfNoneMatch?: true;
  /** The route writes items of the Dynadata type `{type}`: the log-entry guard (`http/log-entry-guard.ts`) runs. */
  writesItemsOfType?: true;
  /**
   * Problem codes the route's own work can answer, beyond those of the chain that every route of its kind can
   * (validation, credential, scope, quota, body, idempotency: see `http/openapi.ts`). The OpenAPI document
   * declares each under its status, and the contract tests fail on any code an operation answers undeclared.
   */
  errors?: readonly ErrorCode[];
  /** Declared by the spec but not available yet: answers 501 `not_implemented`. */
  planned?: true;
  /** Examples of a request body and of a successful answer, for the OpenAPI document (checked by its lint). */
  examples?: { request?: unknown; response?: unknown };
  /**
   * Shapes the document shows instead of `body` and `response` where those are generic on purpose (each
   * Dynadata function validates its own input; `item-fields`: the fields of a contact, or of a custom type as
   * its `/schema` describes them): never used to validate, only converted when the document is.
   */
  documented?: { body?: z.ZodType | 'item-fields'; response?: z.ZodType };
  /**
   * Media types of a successful answer that is not JSON (the documentation page and its assets): the handler
   * answers a raw body (`RouteResult.raw`) and the document declares these types instead of `application/json`.
   */
  produces?: readonly string[];
  /** Further successful statuses answered with no body, each with its description (a JSON-RPC notification). */
  emptyAnswers?: Readonly<Record<number, string>>;
  /** The OpenAPI document appends the MCP tools (`agent` marks of the table) to this route's description. */
  describesTools?: true;
  /**
   * The operation offered to agents as an MCP tool (`mcp/tools.ts`): its input is the operation's own
   * (`operations/operation-input.ts`), its handler the route's, its scope the route's.
   */
  agent?: AgentDoor;
  /** The operation offered to workflows as a step action (`operations/workflow-actions.ts`), likewise. */
  workflow?: WorkflowDoor;
  /**
   * Names of the operation's input members where they differ from the parameter that carries them over HTTP
   * (`{ id: 'workflowId' }`: the path's `{id}` is the input's `workflowId`), for the doors that take one object.
   */
  inputNames?: Readonly<Record<string, string>>;
  /**
   * The input member that carries the whole body, for a body that is not an object of named members (an
   * item's fields travel as `item`); otherwise the body's members are the input's.
   */
  payload?: string;
}

/** An SDK method name: `<resource>[.<sub-resource>…].<verb>` (see `RouteDefinition.sdk`). */
export type SdkMethod = `${string}.${string}`;

/** When a deprecated input was deprecated and from when it may stop working (UTC days), and what replaces it. */
export interface Deprecation {
  since: `${number}-${number}-${number}`;
  sunset: `${number}-${number}-${number}`;
  /** The input to send instead. */
  use: string;
}

/**
 * `read` changes nothing; `create` only adds (a repeated call adds again); `update` changes an existing item
 * (and its `_version`, so a repeat is not without effect); `delete` removes one (a repeat finds nothing more to
 * remove). The MCP annotations derive from it.
 */
export type ToolEffect = 'read' | 'create' | 'update' | 'delete';

export interface AgentDoor {
  /** Tool name: `snake_case`, unique in the table. */
  tool: string;
  title: string;
  /** What the tool gives an agent (the route's description speaks of HTTP). */
  description: string;
  effect: ToolEffect;
  /** The member of the route's answer the tool answers (`job` of `{ job }`); the whole answer when absent. */
  answer?: string;
}

export interface WorkflowDoor {
  /** Action name, `actions/<area>/<verb>`. */
  action: `actions/${string}`;
  /** The longest one run of the action may take, in milliseconds (the sync runner's deadline check). */
  maxDurationMs: number;
  /** The handler reads the company's storage limits from its credential: the run resolves them first. */
  usesLimits?: true;
  /** The answer is a stored file (`{ bucket, fullPath }`) the step made: it joins the run's `files`. */
  answersFile?: true;
}

/** The members of a route that hold zod schemas: each is declared as a getter (`get response() {...}`). */
const SCHEMA_MEMBERS = ['params', 'query', 'body', 'response', 'alsoAnswers', 'documented'] as const;

/**
 * Declares a route. Its schemas are getters, so declaring the route builds none of them: the first read of
 * each builds it, and it is kept on the route from then on (the same instance at every later read, which the
 * OpenAPI document relies on to name shared shapes once). A group's cold start thus builds no schema, and the
 * first request of a route builds only its own.
 */
export const route = <const R extends RouteDefinition>(r: R & Exactly<R, RouteDefinition>): R =>
  keepGetters(r, SCHEMA_MEMBERS);

/**
 * `R` with every member that `Shape` does not declare typed `never`: a generic parameter escapes TypeScript's
 * excess-property check, so without this a misspelt member (`idempotent` for `idempotency`) would compile and
 * silently do nothing. `test/unit/route-declaration-types.test.ts` shows that it does not compile.
 */
export type Exactly<R, Shape> = R & { [K in Exclude<keyof R, keyof Shape>]: never };

export const typeParam = /* @__PURE__ */ lazy(() =>
  z.object({ type: identifierField('Dynadata type name.') }),
);
export const itemParams = /* @__PURE__ */ lazy(() =>
  typeParam().extend({ _id: identifierField('Item identifier.') }),
);
export const jobId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Job identifier.') }));

/** REST API resource path of a route: the `v1` stage supplies the `/v1` prefix on AWS. */
export const apiResourcePath = (path: string): string => path.replace(/^\/v1(?=\/)/, '');

/** The route of `routes` a method and REST API resource name. */
export const findRouteIn = (
  routes: readonly RouteDefinition[],
  method: string,
  resourcePath: string,
): RouteDefinition | undefined =>
  routes.find((r) => r.method === method && apiResourcePath(r.path) === resourcePath);
