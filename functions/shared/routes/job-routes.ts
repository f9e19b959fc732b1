import { DEFAULT_JOB_PAGE, MAX_JOB_FILTER_EXAMINED, MAX_JOB_PAGE } from '../domain/pages';
import { MAX_BUCKET_NAME_LENGTH } from '../domain/storage-limits';
import type { ErrorCode } from '../errors';
import { timestampField } from '../fields';
import { lazy } from '../lazy';
import type { Scope } from '../types/scopes';
import * as z from '../zod';
import {
  type AgentDoor,
  jobId,
  type RouteDefinition,
  type RouteGroup,
  route,
  type WorkflowDoor,
} from './route-definition';
import { nextCursorSchema, pageQuery } from './schemas';
import { fullPathDocumentation } from './storage-schemas';

/**
 * The routes and view fields every job type shares (the job engine's HTTP side): a type's route module
 * takes its enqueue (with its own input schema), list, read, cancel and retry routes and the common fields of
 * its job schema from here, so their shapes and refusals are the same for every type.
 */

/** A stored file a job reads or wrote. */
export const jobFileSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      bucket: z.string().describe('Bucket of the file.'),
      fullPath: z.string().describe('Object path; download it with GET /v1/storage/url.'),
    })
    .describe('A storage reference.'),
);

/**
 * The source fields of an enqueue body for a type that reads a stored file. Path rules (length, segments,
 * prefix) are those of every storage reference and answer `invalid_storage_reference` like the storage
 * routes, so the schema checks only the type.
 */
export const jobSourceFields = (what: string) => ({
  fullPath: z
    .string()
    .meta(fullPathDocumentation)
    .describe(`Path of the stored ${what}, under \`companies/<companyId>/\`.`),
  bucket: z
    .string()
    .max(MAX_BUCKET_NAME_LENGTH)
    .optional()
    .describe('Defaults to the platform storage bucket.'),
});

/**
 * The fields of every job's public view (`domain/jobs/view.ts`), for a type's statuses: its schema spreads
 * them and adds its own.
 */
export const jobViewFields = <const S extends readonly [string, ...string[]]>(options: {
  statuses: S;
  /** The statuses a job does not leave by itself (`x-final-states`: the SDK's waiters stop at them). */
  final: readonly S[number][];
  /** How the statuses follow each other. */
  lifecycle: string;
  /** The error codes a failed job of the type can carry. */
  errorCodes: readonly string[];
  /** What `reused` means for the type. */
  reused: string;
}) => ({
  id: z.string().describe('Job identifier.'),
  status: z
    .enum(options.statuses)
    .meta({ 'x-final-states': [...options.final] })
    .describe(options.lifecycle),
  progress: z
    .object({
      phase: z.enum(options.statuses).describe('Phase the job was in when progress was recorded.'),
      percent: z.number().min(0).max(100).optional().describe('Percent done, when known.'),
    })
    .nullable()
    .describe('Progress of the current attempt.'),
  error: z
    .object({
      code: z
        .string()
        .describe(`Why the attempt failed: ${options.errorCodes.map((code) => `\`${code}\``).join(', ')}.`),
      message: z.string().describe('Human-readable explanation.'),
    })
    .nullable()
    .describe('Set only when `status` is `failed`.'),
  reused: z.boolean().describe(options.reused),
  createdAt: timestampField().describe('When the job was enqueued (ISO 8601).'),
  updatedAt: timestampField().describe('Last change (ISO 8601).'),
  finishedAt: timestampField().nullable().describe('When the current attempt reached a final state.'),
});

/** The error codes every job's attempt can fail with, besides its type's own. */
export const COMMON_JOB_ERRORS = ['timeout', 'interrupted', 'start_failed', 'internal'] as const;

interface JobRouteBase<G extends RouteGroup, P extends `/v1/${string}`> {
  group: G;
  /** The collection: `/v1/transcodes`. */
  path: P;
  tag: string;
  scope: Scope;
}

/** The doors beyond HTTP a job route is offered at (`RouteDefinition.agent`, `.workflow`). */
export interface JobDoors {
  agent?: AgentDoor;
  workflow?: WorkflowDoor;
}

/** The SDK method of a job route (`RouteDefinition.sdk`). */
type SdkOf = RouteDefinition['sdk'];

/** A job route offered at HTTP only. */
type NoDoors = Record<never, never>;

/** The route with its doors: added after `route()` checked the rest, as `D` is known only to the caller. */
const withDoors = <R extends object, D extends JobDoors>(doors: D | undefined, declared: R): R & D =>
  Object.assign(declared, doors) as R & D;

/** What a collection route of the type declares about itself. */
const routeHeader = <const O extends string, G extends RouteGroup, P extends `/v1/${string}`>(
  options: JobRouteBase<G, P> & { operationId: O; sdk: SdkOf; summary: string; description: string },
) => {
  const { path, group, operationId, sdk, summary, description, tag, scope } = options;
  return { path, group, operationId, sdk, summary, description, tag, scope };
};

/** `POST <path>`: enqueue a job of the type from its own input (`body`), keyed by `Idempotency-Key`. */
export const enqueueJobRoute = <
  const O extends string,
  G extends RouteGroup,
  P extends `/v1/${string}`,
  B extends z.ZodType,
  S extends z.ZodType,
  const D extends JobDoors = NoDoors,
>(
  options: JobRouteBase<G, P> & {
    operationId: O;
    sdk: SdkOf;
    summary: string;
    description: string;
    body: () => B;
    response: () => S;
    /** Enqueueing starts asynchronous work: 202 (docs/openapi.md, Conventions, rule 1). */
    successStatus: 202;
    errors: readonly ErrorCode[];
    examples: { request: unknown; response?: unknown };
    doors?: D;
  },
) =>
  withDoors(
    options.doors,
    route({
      method: 'POST',
      ...routeHeader(options),
      idempotency: 'keyed',
      get body() {
        return options.body();
      },
      get response() {
        return options.response();
      },
      successStatus: options.successStatus,
      answersEtag: 'job',
      errors: options.errors,
      examples: options.examples,
    }),
  );

/**
 * The query of every job list: the paging rule's `limit` and `cursor`, `status` (one of the type's statuses,
 * as `status` filters a workflow's runs) and the creation-time window `createdAfter` (inclusive) and
 * `createdBefore` (exclusive), timestamps like every other of the API.
 */
const jobListQuery = (view: z.ZodType) => {
  const { status } = (view as z.ZodObject).shape as { status: z.ZodType<string> };
  return z.object({
    ...pageQuery('Jobs', MAX_JOB_PAGE, DEFAULT_JOB_PAGE),
    status: status
      .optional()
      .describe(
        'Only jobs in this status. A filtered page may be short, or empty, with a `nextCursor`: follow it ' +
          `(one page examines at most ${MAX_JOB_FILTER_EXAMINED} jobs).`,
      ),
    createdAfter: timestampField()
      .optional()
      .describe('Only jobs created at or after this time (UTC, `Z`), as their `createdAt` says.'),
    createdBefore: timestampField()
      .optional()
      .describe(
        'Only jobs created before this time (UTC, `Z`); later than `createdAfter` when both are sent.',
      ),
  });
};

/** `GET <path>`: the company's jobs of the type, newest first, by the one paging rule, filtered. */
export const listJobsRoute = <
  const O extends string,
  G extends RouteGroup,
  P extends `/v1/${string}`,
  S extends z.ZodType,
  const D extends JobDoors = NoDoors,
>(
  options: JobRouteBase<G, P> & {
    operationId: O;
    sdk: SdkOf;
    summary: string;
    description: string;
    view: () => S;
    doors?: D;
  },
) =>
  withDoors(
    options.doors,
    route({
      method: 'GET',
      ...routeHeader(options),
      get query() {
        return jobListQuery(options.view());
      },
      get response() {
        return z.object({ jobs: z.array(options.view()), nextCursor: nextCursorSchema() });
      },
    }),
  );

/**
 * `GET|POST <path>/{id}[/<command>]`: one job (`{ job }`), read, or after a command (cancel, retry) with the
 * problems the command can answer.
 */
export const jobRoute = <
  const O extends string,
  const M extends 'GET' | 'POST',
  G extends RouteGroup,
  const T extends `/v1/${string}/{id}` | `/v1/${string}/{id}/${string}`,
  S extends z.ZodType,
  const D extends JobDoors = NoDoors,
>(options: {
  method: M;
  group: G;
  path: T;
  tag: string;
  scope: Scope;
  operationId: O;
  sdk: SdkOf;
  summary: string;
  description?: string;
  response: () => S;
  errors: readonly ErrorCode[];
  successStatus?: number;
  doors?: D;
}) =>
  withDoors(
    options.doors,
    route({
      method: options.method,
      path: options.path,
      group: options.group,
      operationId: options.operationId,
      sdk: options.sdk,
      summary: options.summary,
      ...(options.description ? { description: options.description } : {}),
      tag: options.tag,
      scope: options.scope,
      ...(options.method === 'GET'
        ? { etag: true as const }
        : { idempotency: 'keyed' as const, answersEtag: 'job' as const }),
      ...(options.successStatus ? { successStatus: options.successStatus } : {}),
      get params() {
        return jobId();
      },
      get response() {
        return options.response();
      },
      errors: options.errors,
    }),
  );
