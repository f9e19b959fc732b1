import type { components, operations } from './generated/openapi.js';
import type { OPERATIONS } from './generated/operations.js';

/**
 * Type-level helpers over the types `openapi-typescript` generates from the OpenAPI document: they name an
 * operation's request and answer by its `operationId`, so every type the SDK exports is read out of the
 * document and none is written by hand. Generic by design: an operation or schema the document gains is
 * reachable here at the next build.
 */

/** The document's `operationId`s. */
export type OperationId = keyof operations & keyof typeof OPERATIONS;

/** The document's named schemas (`components.schemas`). */
export type Schemas = components['schemas'];

/** A named schema of the document. */
export type Schema<Name extends keyof Schemas> = Schemas[Name];

type Responses<Id extends OperationId> = operations[Id]['responses'];

type JsonOf<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;

/** Success statuses an operation may answer with a JSON body. */
type SuccessStatus = 200 | 201 | 202;

/** The JSON body of an operation's success answer (a union when it has several, as 200 and 202). */
export type SuccessBody<Id extends OperationId, Status extends SuccessStatus = SuccessStatus> = JsonOf<
  Responses<Id>[Extract<keyof Responses<Id>, Status>]
>;

/** The JSON body an operation takes (`never` when it takes none). */
export type RequestBody<Id extends OperationId> = JsonOf<NonNullable<operations[Id]['requestBody']>>;

/** The path parameters of an operation. */
export type PathParams<Id extends OperationId> = NonNullable<operations[Id]['parameters']['path']>;

/** The query parameters of an operation. */
export type QueryParams<Id extends OperationId> = NonNullable<operations[Id]['parameters']['query']>;

/**
 * A resource type by name: the document's schema of that name when it has one, otherwise the type read out of
 * an operation. So a resource keeps its name whether the document inlines its shape or names it.
 */
export type Named<Name extends string, Fallback> = Name extends keyof Schemas ? Schemas[Name] : Fallback;

type Facts = typeof OPERATIONS;

/** The operations that follow the paging rule (see `scripts/operation-table.ts`). */
export type PagedOperationId = {
  [Id in OperationId]: Facts[Id]['page'] extends { items: string } ? Id : never;
}[OperationId];

type PageFacts<Id extends PagedOperationId> = Extract<Facts[Id]['page'], { items: string }>;

/** One element of a paged operation's page. */
export type PageItem<Id extends PagedOperationId> =
  SuccessBody<Id> extends infer Page
    ? Page extends Record<PageFacts<Id>['items'], readonly (infer Item)[]>
      ? Item
      : never
    : never;

type WithoutCursor<T, Cursor extends string> = [T] extends [never] ? never : Omit<T, Cursor>;

type PathInput<Id extends PagedOperationId> = [PathParams<Id>] extends [never]
  ? { path?: never }
  : { path: PathParams<Id> };

/**
 * What a paged operation takes, less its cursor (the iterator follows the cursor itself): its path
 * parameters (required when the path has any), its query and its JSON body.
 */
export type PageInput<Id extends PagedOperationId> = PathInput<Id> & {
  query?: WithoutCursor<QueryParams<Id>, PageFacts<Id>['cursor']>;
  body?: WithoutCursor<RequestBody<Id>, PageFacts<Id>['cursor']>;
  /** Start from this cursor instead of the first page. */
  cursor?: string;
};
