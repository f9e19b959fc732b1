import { DEFAULT_JOB_PAGE, MAX_JOB_PAGE, MAX_LIST_PAGE } from '../domain/pages';
import { RUN_TRIGGER_TYPES } from '../types/workflow-triggers';
import * as z from '../zod';
import { route } from './route-definition';
import { nextCursorSchema, pageQuery, queryBoolean } from './schemas';
import * as wf from './workflow-schemas';

/**
 * The routes of workflows and their runs (group `workflows`): a section of the route table (`route-table.ts`
 * joins the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const WORKFLOW_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/workflows',
    group: 'workflows',
    operationId: 'listWorkflows',
    summary: "The company's workflows",
    description:
      'Every workflow the company has saved (operators manage definitions with the admin CLI), with its ' +
      'current version, name and description. Run one with POST /v1/workflows/{id}/run.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get query() {
      return z.object(pageQuery('Workflows', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ workflows: z.array(wf.workflowSummarySchema()), nextCursor: nextCursorSchema() });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}',
    group: 'workflows',
    operationId: 'getWorkflow',
    etag: true,
    summary: 'A workflow definition',
    description:
      'The current version of a definition: its input schema, ordered steps (action, `with`, ' +
      "`allowFailure`) and `return` object. An unknown id, or another company's, answers 404 `not_found`.",
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams();
    },
    get response() {
      return z.object({ workflow: wf.workflowSchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/workflows/{id}/run',
    group: 'workflows',
    operationId: 'runWorkflow',
    summary: 'Run a manual workflow',
    description:
      '`sync` (the default) answers 200 with the finished run; check `ok`: a run whose steps failed without ' +
      '`allowFailure` is `partial` with `error.code` `workflow_steps_failed` and `failedSteps`. A sync run ' +
      'that cannot finish before the deadline (below the gateway timeout) continues asynchronously and ' +
      'answers 202 `{runId}`, as `async` does; poll GET /v1/workflows/{id}/runs/{runId}. Each run adds 1 to ' +
      '`workflow_runs`: 429 `workflow_quota_exceeded` (Retry-After) once the month is used up. Honours ' +
      'Idempotency-Key. A token a step mints (`actions/security/auth/jwt/generate`) is in this answer only, ' +
      'once: the stored run, its event and a replay of the same Idempotency-Key show ' +
      '`{"redacted": true, "jti", "expiresAt"}`; an async run cannot mint one (`jwt_requires_sync_run`).',
    tag: 'Workflows',
    scope: 'workflows:run',
    idempotency: 'keyed',
    get params() {
      return wf.workflowIdParams();
    },
    get body() {
      return wf.runWorkflowBodySchema();
    },
    get response() {
      return wf.syncRunResponseSchema();
    },
    get alsoAnswers() {
      return [
        {
          status: 202,
          description: 'Accepted: the run continues asynchronously',
          response: wf.acceptedRunResponseSchema(),
        },
      ];
    },
    idempotent: true,
    errors: ['not_found', 'workflow_quota_exceeded', 'service_unavailable'],
    examples: { request: { mode: 'sync', input: { contactId: '01jd3xq0b2' } } },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/runs',
    group: 'workflows',
    operationId: 'listWorkflowRuns',
    summary: "A workflow's runs, newest first",
    description:
      'Each run with its `status`, `trigger`, `startedAt` and `finishedAt` (null while running), `limit` per ' +
      'page; the whole run: GET /v1/workflows/{id}/runs/{runId}. Runs are kept 30 days.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams();
    },
    get query() {
      return z.object(pageQuery('Runs', MAX_JOB_PAGE, DEFAULT_JOB_PAGE));
    },
    get response() {
      return z.object({
        runs: z.array(
          z.object({
            runId: z.string(),
            status: z.enum(['running', 'success', 'partial', 'failed']),
            trigger: z.enum(RUN_TRIGGER_TYPES).describe('What started the run.'),
            startedAt: z.string(),
            finishedAt: z.string().nullable(),
          }),
        ),
        nextCursor: nextCursorSchema(),
      });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/runs/{runId}',
    group: 'workflows',
    operationId: 'getWorkflowRun',
    etag: true,
    summary: "Fetch a run's status and durable outputs",
    description:
      '`status` is `running`, `success`, `partial` or `failed` (the run itself could not complete). With ' +
      '`includeStepOutputs=true`, the persisted output of each step of a run started with `includeStepOutputs`. ' +
      'A secret a step produced (a minted token) is kept as `{"redacted": true, "jti", "expiresAt"}`.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams().extend({ runId: z.string().min(1).max(64).describe('Run identifier.') });
    },
    get query() {
      return z.object({
        includeStepOutputs: queryBoolean('Include the persisted step outputs.'),
      });
    },
    get response() {
      return z.object({ run: wf.workflowRunSchema() });
    },
    errors: ['not_found'],
  }),
] as const;
