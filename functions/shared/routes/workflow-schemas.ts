import { conditionSchema } from '../domain/workflows/conditions';
import { identifierField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { RUN_TRIGGER_TYPES, TRIGGER_EVENT_TYPES } from '../types/workflow-triggers';
import {
  FINAL_RUN_STATUSES,
  FOREACH_MAX_CONCURRENCY,
  RETRY_CLASSES,
  STEP_STATUSES,
  WORKFLOW_RUN_STATUSES,
} from '../types/workflows';
import * as z from '../zod';
import { dynadataTypeFilterSchema } from './event-schemas';

/** Request and response shapes of the workflow routes (they become the OpenAPI document). */
const storageRef = /* @__PURE__ */ lazy(() =>
  z.object({ bucket: z.string(), fullPath: z.string() }).describe('A storage reference.'),
);

export const workflowIdParams = /* @__PURE__ */ lazy(() =>
  z.object({
    id: identifierField('Workflow identifier (`[a-z0-9_-]{1,64}`).'),
  }),
);

export const workflowSummarySchema = /* @__PURE__ */ lazy(() =>
  z.object({
    id: z.string(),
    version: z.number().int().describe('Latest saved version; runs record the version they ran.'),
    name: z.string(),
    description: z.string().nullable(),
    steps: z.number().int().describe('Number of steps.'),
    updatedAt: timestampField(),
  }),
);

export const stepRetrySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      maxAttempts: z.number().int().min(1).max(10).describe('Attempts in all, the first included.'),
      backoffSeconds: z
        .number()
        .int()
        .min(0)
        .max(300)
        .optional()
        .describe('Wait before the second attempt (default 1), doubled for each next one, jittered.'),
      on: z
        .array(z.enum(RETRY_CLASSES))
        .min(1)
        .max(RETRY_CLASSES.length)
        .optional()
        .describe('What is retried (default `http_5xx`, `timeout`, `network`).'),
    })
    .strict()
    .describe('Try the step again; each attempt is in the step log `attempts`.'),
);

/** `forEach` and `concurrency` of a step (`domain/workflows/for-each.ts`). */
const forEachFields = /* @__PURE__ */ lazy(() => ({
  forEach: z
    .union([z.string().max(1000), z.array(z.unknown()).max(1000)])
    .optional()
    .describe(
      'Run the action once per element of a list: one `{{ reference }}` to a list (e.g. ' +
        '`{{ steps.list.output.items }}`) or a list written out. `{{ item }}` and `{{ index }}` are then ' +
        "available in `with`. At most the plan's `workflowForEachItems` elements; the output is " +
        '`{items: [{index, status, output | error, attempts}], succeeded, failed}`.',
    ),
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(FOREACH_MAX_CONCURRENCY)
    .optional()
    .describe('With `forEach`: items run at once (default 1).'),
}));

/** `on` of a definition: what starts its runs besides an API call. */
const workflowTriggersSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      events: z
        .array(z.string().max(64))
        .max(TRIGGER_EVENT_TYPES.length)
        .optional()
        .describe(
          `Event types of the company that each start a run: ${TRIGGER_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
        ),
      dynadataTypes: dynadataTypeFilterSchema().optional(),
      schedule: z
        .string()
        .max(256)
        .optional()
        .describe('`rate(…)` or `cron(…)` (EventBridge Scheduler, UTC), at least 5 minutes apart.'),
    })
    .strict(),
);

/** The body of `PUT /v1/workflows/{id}`, as the document shows it (the definition's own rules check it). */
export const workflowDefinitionBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z
        .string()
        .max(64)
        .optional()
        .describe('The workflow id; the path gives it, so it may be left out.'),
      name: z.string().min(1).max(200),
      description: z.string().max(2000).optional(),
      input: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('JSON Schema (the Dynadata subset) of the run input; any object by default.'),
      steps: z
        .array(
          z
            .object({
              id: z.string().max(64).describe('`[A-Za-z0-9_-]{1,64}`, unique in the workflow.'),
              action: z.string().max(200).describe('An action of the registry, e.g. `actions/http/request`.'),
              with: z
                .record(z.string(), z.unknown())
                .optional()
                .describe(
                  'Action input; strings may hold `{{ references }}` to the input and earlier steps.',
                ),
              allowFailure: z.boolean().optional(),
              if: conditionSchema().optional(),
              retry: stepRetrySchema().optional(),
              ...forEachFields(),
            })
            .strict(),
        )
        .min(1)
        .max(50),
      return: z.unknown().optional().describe('The run result, with `{{ references }}` evaluated.'),
      on: workflowTriggersSchema().optional(),
    })
    .strict()
    .describe('A workflow definition, as the admin CLI takes it.'),
);

export const workflowSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string(),
      version: z.number().int(),
      name: z.string(),
      description: z.string().nullable(),
      input: z
        .record(z.string(), z.unknown())
        .describe('JSON Schema (the Dynadata subset) of the run input.'),
      steps: z.array(
        z.object({
          id: z.string(),
          action: z.string().describe('An action of the registry, e.g. `actions/media/transcode`.'),
          with: z
            .record(z.string(), z.unknown())
            .describe('Action input; strings may hold `{{ references }}`.'),
          allowFailure: z.boolean(),
          if: conditionSchema().optional(),
          retry: stepRetrySchema().optional(),
          ...forEachFields(),
        }),
      ),
      return: z.unknown().describe('The run result, with `{{ references }}` evaluated.'),
      on: workflowTriggersSchema()
        .nullable()
        .describe('What starts runs besides an API call (null: nothing).'),
      createdAt: timestampField(),
      updatedAt: timestampField(),
    })
    .describe('A workflow definition (latest version).'),
);

export const runWorkflowBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      mode: z
        .enum(['sync', 'async'])
        .optional()
        .describe('`sync` (default) answers the finished run; `async` 202.'),
      includeStepOutputs: z.boolean().optional().describe('Persist each step output on the run.'),
      input: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('Run input, checked against the workflow `input`.'),
    })
    .strict(),
);

const failedStepSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    step: z.string(),
    code: z.string(),
    userMessage: z.string(),
    handled: z.literal(true).optional().describe('The step was declared `allowFailure`.'),
  }),
);

const stepLogSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    step: z.string(),
    action: z.string(),
    status: z.enum(STEP_STATUSES),
    startedAt: timestampField(),
    durationMs: z.number(),
    message: z.string().nullable(),
    attempts: z
      .array(
        z.object({
          startedAt: timestampField(),
          durationMs: z.number(),
          status: z.enum(['succeeded', 'failed']),
          code: z.string().optional(),
          httpStatus: z.number().int().optional().describe('What an HTTP action was answered.'),
        }),
      )
      .optional()
      .describe('A step with `retry`: each attempt, the last being the step result.'),
  }),
);

const runFields = /* @__PURE__ */ lazy(() => ({
  runId: z.string(),
  status: z.enum(WORKFLOW_RUN_STATUSES).meta({ 'x-final-states': [...FINAL_RUN_STATUSES] }),
  ok: z.boolean().describe('True only for `success`: check it, not the HTTP status.'),
  result: z.unknown().describe('The evaluated `return`.'),
  files: z.array(storageRef()).describe('Storage references produced by steps.'),
  logs: z.array(stepLogSchema()),
  error: z.object({ code: z.string(), message: z.string().optional() }).nullable(),
  failedSteps: z.array(failedStepSchema()),
  executionTimeMs: z.number(),
}));

const stepOutputsSchema = /* @__PURE__ */ lazy(() =>
  z
    .array(
      z.object({
        step: z.string(),
        output: z.unknown().optional(),
        object: storageRef().optional().describe('Large outputs: the stored object holding it (JSON).'),
        bytes: z.number().int().optional(),
      }),
    )
    .optional()
    .describe('With `includeStepOutputs`: the persisted output of each succeeded step.'),
);

/** What started a run: an API call, an event of the company (`on.events`) or its schedule (`on.schedule`). */
const runTriggerSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      type: z.enum(RUN_TRIGGER_TYPES),
      eventId: z.string().optional().describe('`event`: the event that started the run.'),
      eventType: z.string().optional().describe('`event`: its type.'),
      scheduledAt: timestampField().optional().describe('`schedule`: the time the run was due.'),
      rerunOf: z.string().optional().describe('`rerun`: the run this one repeats.'),
    })
    .describe('What started the run.'),
);

export const workflowRunSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    ...runFields(),
    workflowId: z.string(),
    version: z.number().int(),
    mode: z.enum(['sync', 'async']),
    createdAt: timestampField(),
    updatedAt: timestampField(),
    finishedAt: timestampField().nullable(),
    handedOffAt: timestampField().nullable().describe('When a sync run continued asynchronously.'),
    trigger: runTriggerSchema(),
    stepOutputs: stepOutputsSchema(),
  }),
);

export const syncRunResponseSchema = /* @__PURE__ */ lazy(() =>
  z.object({ ...runFields(), stepOutputs: stepOutputsSchema() }),
);
export const acceptedRunResponseSchema = /* @__PURE__ */ lazy(() => z.object({ runId: z.string() }));

/** A saved version: the workflow as GET showed it then, and when it was saved. */
export const workflowVersionSchema = /* @__PURE__ */ lazy(() =>
  workflowSchema().extend({ savedAt: timestampField().describe('When this version was saved.') }),
);

/** What `POST …/runs/{runId}/rerun` takes: the version to run, and how, as a run does. */
export const rerunBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      version: z
        .enum(['same', 'latest'])
        .optional()
        .describe('`same` (default): the version the run ran; `latest`: the current version.'),
      mode: z.enum(['sync', 'async']).optional().describe('As for a run: `sync` (default) or `async`.'),
      includeStepOutputs: z.boolean().optional().describe('As for a run.'),
    })
    .strict(),
);
