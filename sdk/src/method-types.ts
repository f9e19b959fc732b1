import type { ApiError } from './errors.js';
import type { operations } from './generated/openapi.js';
import type {
  OperationId,
  PagedOperationId,
  PageItem,
  PathParams,
  RequestBody,
  SuccessBody,
} from './operation-types.js';

/**
 * The types of the resource methods (decision 0043), each read out of its operation's generated types: the
 * generated tree (`generated/resource-tree.ts`) names a method `Method<'createTranscode', []>`, and the
 * arguments, the answer and the problem codes follow from the operation id.
 *
 * A method takes the path parameters its name does not bind, positionally in path order, then its input
 * object (the JSON body, or the query parameters of an operation without a body; optional when every member
 * is), then the call's options (`idempotencyKey`, typed header parameters such as `If-Match`, `signal`).
 */

type Parameters<Id extends OperationId> = operations[Id]['parameters'];

type Present<T> = [T] extends [never] ? false : [T] extends [undefined] ? false : true;

/** The query parameters of an operation (never when it has none). */
type QueryOf<Id extends OperationId> =
  Present<Parameters<Id>['query']> extends true ? NonNullable<Parameters<Id>['query']> : never;

/** The header parameters of an operation, less `Idempotency-Key` (`idempotencyKey` carries it). */
type HeaderOf<Id extends OperationId> =
  Present<Parameters<Id>['header']> extends true ? NonNullable<Parameters<Id>['header']> : never;

/** The method's input object: the body, or the query when there is no body. */
export type MethodInput<Id extends OperationId> = [RequestBody<Id>] extends [never]
  ? QueryOf<Id>
  : RequestBody<Id>;

/** Options of every call. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** The options of a call of operation `Id`: its header parameters, its idempotency key, its query beside a body. */
export type MethodOptions<Id extends OperationId> = CallOptions &
  ([HeaderOf<Id>] extends [never]
    ? unknown
    : 'Idempotency-Key' extends keyof HeaderOf<Id>
      ? {
          /** Your own `Idempotency-Key` (default: a fresh UUID per call, the same on each of its retries). */
          idempotencyKey?: string;
          headers?: Omit<HeaderOf<Id>, 'Idempotency-Key'>;
        }
      : { headers?: HeaderOf<Id> }) &
  ([RequestBody<Id>] extends [never]
    ? unknown
    : [QueryOf<Id>] extends [never]
      ? unknown
      : { query?: QueryOf<Id> });

type PathArgs<Id extends OperationId, Names extends readonly string[]> = {
  [K in keyof Names]: Names[K] extends keyof PathParams<Id> ? PathParams<Id>[Names[K]] : string;
};

/** The arguments of a method: path parameters, the input object when it has one, the options. */
export type MethodArgs<Id extends OperationId, Names extends readonly string[]> = [MethodInput<Id>] extends [
  never,
]
  ? [...PathArgs<Id, Names>, options?: MethodOptions<Id>]
  : Record<never, never> extends MethodInput<Id>
    ? [...PathArgs<Id, Names>, input?: MethodInput<Id>, options?: MethodOptions<Id>]
    : [...PathArgs<Id, Names>, input: MethodInput<Id>, options?: MethodOptions<Id>];

/** What a method resolves to: its success body, nothing for an answer without one (204). */
export type MethodResult<Id extends OperationId> = [SuccessBody<Id>] extends [never]
  ? undefined
  : SuccessBody<Id>;

type ProblemOf<R> = R extends { content: { 'application/problem+json': infer P } } ? P : never;

type CodeOf<P> = P extends { code?: unknown } ? Extract<NonNullable<P['code']>, string> : never;

/** The problem codes the document declares for an operation's refusals. */
export type ProblemCode<Id extends OperationId> = CodeOf<
  ProblemOf<operations[Id]['responses'][keyof operations[Id]['responses']]>
>;

/** The error a method of operation `Id` throws: `code` is one of the codes the document declares for it. */
export type OperationError<Id extends OperationId> = ApiError<
  [ProblemCode<Id>] extends [never] ? string : ProblemCode<Id>
>;

interface MethodMembers<Id extends OperationId> {
  /** The operation the method calls. */
  readonly operationId: Id;
  /** True for an `ApiError` the API answered: narrows `code` to the operation's declared codes. */
  isError(error: unknown): error is OperationError<Id>;
}

/** A resource method: `client.transcodes.get(id)`. */
export type Method<Id extends OperationId, Names extends readonly string[]> = ((
  ...args: MethodArgs<Id, Names>
) => Promise<MethodResult<Id>>) &
  MethodMembers<Id>;

/** A paged list: the call answers one page, `.all(…)` iterates every element of every page. */
export type ListMethod<Id extends OperationId, Names extends readonly string[]> = Method<Id, Names> & {
  all(...args: MethodArgs<Id, Names>): AsyncGenerator<Id extends PagedOperationId ? PageItem<Id> : never>;
};

/** Options of a waiter. */
export interface WaitOptions {
  /** Give up after this long (default 600 000, ten minutes): the waiter throws a `WaitTimeoutError`. */
  timeoutMs?: number;
  /** Wait before the second read (default 1 000); each later wait is 1.5 times longer. */
  initialDelayMs?: number;
  /** Longest wait between two reads (default 15 000), unless the API's `Retry-After` asks for more. */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/** The resource a waiter polls (`job`, `run`), in one of its final states. */
export type Finished<Id extends OperationId, Member extends string, Final extends string> =
  SuccessBody<Id> extends infer Body
    ? Body extends Record<Member, infer Resource>
      ? Resource & { status: Final }
      : never
    : never;

/** `waitUntilDone(…path parameters, options?)`: reads the resource until its status is final. */
export type Waiter<
  Id extends OperationId,
  Names extends readonly string[],
  Member extends string,
  Final extends string,
> = (...args: [...PathArgs<Id, Names>, options?: WaitOptions]) => Promise<Finished<Id, Member, Final>>;
