import { lazy } from '../lazy';
import type { PlanLimits } from '../types/plans';
import * as zm from '../zod-mini';

/**
 * Attribute schemas more than one entity stores. A nested value whose shape another layer owns and checks
 * on the way in (tenant JSON, a workflow definition, an engine's result) is checked here as what it is at
 * the top (an object, an array) and typed as the owner declares it: the entity layer guards the item's own
 * attributes, not every member of a tenant's document.
 */

/** A nested value checked as a plain object (a map in the table) and typed as `T`. */
export const storedObject = <T extends object>() =>
  zm.custom<T>((value) => typeof value === 'object' && value !== null && !Array.isArray(value));

/** A nested value checked as an array (a list in the table) and typed as `T`. */
export const storedList = <T extends unknown[]>() => zm.custom<T>((value) => Array.isArray(value));

/** A stored file: the platform bucket and its path. */
export const objectReference = /* @__PURE__ */ lazy(() =>
  zm.object({ bucket: zm.string(), fullPath: zm.string() }),
);

/** A job's source as enqueued: the stored object's size, ETag and content type. */
export const jobSource = /* @__PURE__ */ lazy(() =>
  zm.object({
    bucket: zm.string(),
    fullPath: zm.string(),
    size: zm.number(),
    etag: zm.string(),
    contentType: zm.optional(zm.string()),
  }),
);

/** A job's output file, recorded as one of the company's stored objects. */
export const jobOutputFile = /* @__PURE__ */ lazy(() =>
  zm.object({
    bucket: zm.string(),
    fullPath: zm.string(),
    size: zm.number(),
    contentType: zm.string(),
  }),
);

/** The error code and message a failed piece of work records. */
export const workError = /* @__PURE__ */ lazy(() => zm.object({ code: zm.string(), message: zm.string() }));

/** A job type's queue item: the number of the company's unfinished jobs (absent before the first). */
export const jobQueue = /* @__PURE__ */ lazy(() => zm.object({ unfinished: zm.optional(zm.number()) }));

/** The names of every plan limit: a plan stored before a limit existed lacks it (`plans.ts` fills it in). */
export const PLAN_LIMIT_NAMES = [
  'apiRequestsPerMonth',
  'requestsPerSecond',
  'burst',
  'storageBytes',
  'maxObjectBytes',
  'databaseBytes',
  'transcodeSecondsPerMonth',
  'transcodeQueueCap',
  'transcodeMaxSourceBytes',
  'transcodeMaxDurationSeconds',
  'transcriptionSecondsPerMonth',
  'transcriptionQueueCap',
  'transcriptionMaxSourceBytes',
  'transcriptionMaxDurationSeconds',
  'speechCharactersPerMonth',
  'speechJobQueueCap',
  'workflowRunsPerMonth',
  'workflowRunComputeMs',
  'workflowForEachItems',
  'logRetentionDays',
  'webhookEndpoints',
  'workflows',
  'dynadataTypes',
  'dynadataFieldsPerType',
] as const satisfies readonly (keyof PlanLimits)[];
/** Every limit is named above (a limit added to `PlanLimits` and not here does not compile). */
const _PLAN_LIMIT_NAMES_COMPLETE: [Exclude<keyof PlanLimits, (typeof PLAN_LIMIT_NAMES)[number]>] extends [
  never,
]
  ? true
  : false = true;

/** Limits of which any may be absent (per-company overrides, plans stored before a limit existed). */
export const partialPlanLimits = /* @__PURE__ */ lazy(() =>
  zm.object(
    Object.fromEntries(PLAN_LIMIT_NAMES.map((name) => [name, zm.optional(zm.number())])) as Record<
      keyof PlanLimits,
      zm.ZodMiniOptional<zm.ZodMiniNumber>
    >,
  ),
);
