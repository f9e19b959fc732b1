import { DEFAULT_JOB_PAGE, MAX_JOB_PAGE, MAX_LIST_PAGE } from '../domain/pages';
import { identifierField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { RUN_TRIGGER_TYPES } from '../types/workflow-triggers';
import { WORKFLOW_RUN_STATUSES } from '../types/workflows';
import * as z from '../zod';
import { route } from './route-definition';
import { deletedAnswer, nextCursorSchema, pageQuery, queryBoolean } from './schemas';
import * as wf from './workflow-schemas';

const runParams = /* @__PURE__ */ lazy(() =>
  wf.workflowIdParams().extend({ runId: identifierField('Run identifier.') }),
);

/**
 * The routes of workflows and their runs (group `workflows`): a section of the route table (`route-table.ts`
 * joins the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
/** Starting a run may also answer 202 `{runId}`: the run goes on asynchronously. */
const acceptedRunAnswer = () => [
  {
    status: 202,
    description: 'Accepted: the run continues asynchronously',
    response: wf.acceptedRunResponseSchema(),
  },
];

export const WORKFLOW_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/workflows',
    group: 'workflows',
    operationId: 'listWorkflows',
    sdk: 'workflows.list',
    summary: "The company's workflows",
    description:
      'Every workflow the company has saved (PUT /v1/workflows/{id}, or the admin CLI), with its ' +
      'current version, name and description. Run one with POST /v1/workflows/{id}/run.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get query() {
      return z.object(pageQuery('Workflows', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ workflows: z.array(wf.workflowSummarySchema()), nextCursor: nextCursorSchema() });
    },
    agent: {
      tool: 'list_workflows',
      title: 'List workflows',
      description: "The company's workflows as GET /v1/workflows: id, version, name, description, steps.",
      effect: 'read',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}',
    group: 'workflows',
    operationId: 'getWorkflow',
    sdk: 'workflows.get',
    etag: true,
    summary: 'A workflow definition',
    description:
      'The current version of a definition: its input schema, ordered steps (action, `with`, ' +
      '`allowFailure`, and `if`, `retry`, `forEach` and `concurrency` where set) and `return` object. The `ETag` makes a PUT or DELETE ' +
      "conditional (If-Match). An unknown id, or another company's, answers 404 `not_found`.",
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams();
    },
    get response() {
      return z.object({ workflow: wf.workflowSchema() });
    },
    errors: ['not_found'],
    inputNames: { id: 'workflowId' },
    agent: {
      tool: 'get_workflow',
      title: 'Get a workflow',
      description:
        'One workflow definition as GET /v1/workflows/{id} shows it under `workflow`: its input schema, steps, ' +
        'triggers and version.',
      effect: 'read',
      answer: 'workflow',
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/workflows/{id}',
    group: 'workflows',
    operationId: 'putWorkflow',
    sdk: 'workflows.put',
    answersEtag: 'workflow',
    ifMatch: true,
    summary: 'Save a workflow definition',
    description:
      'Saves the body (the definition the admin CLI takes; the path gives `id`) as the next version: 201 for ' +
      'a new workflow, 200 for a new version; runs in flight finish on the version they started with. An ' +
      'invalid definition answers 400 `validation_failed` listing every violation by JSON pointer (`errors`). ' +
      "At most the plan's `workflows` per company (403 `workflow_limit_reached`). Honours If-Match with the " +
      'ETag of GET /v1/workflows/{id}. A step with `forEach` runs its action once per element of a list ' +
      '(`{{ item }}`, `{{ index }}` in its `with`; `concurrency` at once; `retry` and `allowFailure` per item).',
    tag: 'Workflows',
    scope: 'workflows:write',
    get params() {
      return wf.workflowIdParams();
    },
    get body() {
      return z.record(z.string(), z.unknown());
    },
    get documented() {
      return { body: wf.workflowDefinitionBodySchema() };
    },
    get response() {
      return z.object({ workflow: wf.workflowSchema() });
    },
    get alsoAnswers() {
      return [
        {
          status: 201,
          description: 'Created: the first version of a new workflow',
          response: z.object({ workflow: wf.workflowSchema() }),
        },
      ];
    },
    errors: ['workflow_limit_reached', 'conflict'],
  }),
  route({
    method: 'DELETE',
    path: '/v1/workflows/{id}',
    group: 'workflows',
    operationId: 'deleteWorkflow',
    sdk: 'workflows.delete',
    ifMatch: true,
    summary: 'Delete a workflow',
    description:
      'Removes the workflow (its id answers 404 from then on; saving it again starts a new workflow whose ' +
      'versions go on from the last). Runs in flight finish on the version they started with; runs stay ' +
      'readable. Honours If-Match with the ETag of GET /v1/workflows/{id}.',
    tag: 'Workflows',
    scope: 'workflows:write',
    get params() {
      return wf.workflowIdParams();
    },
    get response() {
      return deletedAnswer({ id: z.string().describe('The deleted workflow.') });
    },
    errors: ['not_found', 'conflict'],
    examples: { response: { deleted: true, id: 'notify-order' } },
  }),
  route({
    method: 'POST',
    path: '/v1/workflows/{id}/run',
    group: 'workflows',
    operationId: 'runWorkflow',
    sdk: 'workflows.run',
    summary: 'Run a manual workflow',
    description:
      '`sync` (the default) answers 200 with the finished run; check `ok`: a run whose steps failed without ' +
      '`allowFailure` is `partial` with `error.code` `workflow_steps_failed` and `failedSteps`. A sync run ' +
      'that cannot finish before the deadline (below the gateway timeout) continues asynchronously and ' +
      'answers 202 `{runId}`, as `async` does; poll GET /v1/workflows/{id}/runs/{runId}. Each run adds 1 to ' +
      '`workflow_runs`: 429 `workflow_quota_exceeded` (Retry-After) once the month is used up. Honours ' +
      'Idempotency-Key. A token a step mints (`actions/security/auth/jwt/generate`) is in this answer only, ' +
      'once: the stored run, its event and a replay of the same Idempotency-Key show ' +
      '`{"redacted": true, "jti", "expiresAt"}`. An async run keeps its tokens sealed for its later steps and ' +
      'answers them to nobody.',
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
      return acceptedRunAnswer();
    },
    errors: ['not_found', 'workflow_quota_exceeded', 'service_unavailable'],
    examples: { request: { mode: 'sync', input: { contactId: '01jd3xq0b2' } } },
    inputNames: { id: 'workflowId' },
    agent: {
      tool: 'run_workflow',
      title: 'Run a workflow',
      description:
        'Runs a workflow, as POST /v1/workflows/{id}/run (`mode: sync` by default), and answers the run as ' +
        'GET /v1/workflows/{id}/runs/{runId} shows it (check `ok`). A run that cannot finish before the ' +
        'deadline, or one started with `mode: async`, continues asynchronously: it is answered `running` or ' +
        '`queued`; read it later with get_workflow_run. A step that mints a token fails ' +
        '(`jwt_requires_sync_run`): tokens are minted only by the run route.',
      effect: 'create',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/versions',
    group: 'workflows',
    operationId: 'listWorkflowVersions',
    sdk: 'workflows.versions.list',
    summary: "A workflow's saved versions, oldest first",
    description:
      'Every version saved by PUT /v1/workflows/{id} (or the operator CLI), each as GET /v1/workflows/{id} ' +
      'showed it then, with `savedAt`. A run records the version it ran (`version` on the run). Versions ' +
      'stay readable while the workflow exists; a deleted workflow answers 404 `not_found`.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams();
    },
    get query() {
      return z.object(pageQuery('Versions', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ versions: z.array(wf.workflowVersionSchema()), nextCursor: nextCursorSchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/versions/{version}',
    group: 'workflows',
    operationId: 'getWorkflowVersion',
    sdk: 'workflows.versions.get',
    etag: true,
    summary: 'One saved version of a workflow',
    description:
      'The definition saved as that version, as GET /v1/workflows/{id} showed it then, with `savedAt`; a ' +
      'version never saved answers 404 `not_found`.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams().extend({
        version: z
          .string()
          .max(6)
          .regex(/^[1-9][0-9]{0,5}$/, 'a version number, from 1')
          .describe('The version number (1 is the first save).'),
      });
    },
    get response() {
      return z.object({ workflow: wf.workflowVersionSchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/runs',
    group: 'workflows',
    operationId: 'listWorkflowRuns',
    sdk: 'workflows.runs.list',
    summary: "A workflow's runs, newest first",
    description:
      'Each run with its `status`, `trigger`, `startedAt` and `finishedAt` (null while running), `limit` per ' +
      'page, `status` to list only runs with that status (a filtered page may be short, or empty, with a ' +
      '`nextCursor`: follow it); the whole run: GET /v1/workflows/{id}/runs/{runId}. An async run is listed ' +
      'from its start; a sync run once it has finished or was handed off (202). Runs are kept 30 days.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return wf.workflowIdParams();
    },
    get query() {
      return z.object({
        ...pageQuery('Runs', MAX_JOB_PAGE, DEFAULT_JOB_PAGE),
        status: z.enum(WORKFLOW_RUN_STATUSES).optional().describe('Only runs with this status.'),
      });
    },
    get response() {
      return z.object({
        runs: z.array(
          z.object({
            runId: z.string(),
            status: z.enum(WORKFLOW_RUN_STATUSES),
            trigger: z.enum(RUN_TRIGGER_TYPES).describe('What started the run.'),
            startedAt: timestampField(),
            finishedAt: timestampField().nullable(),
          }),
        ),
        nextCursor: nextCursorSchema(),
      });
    },
    errors: ['not_found'],
    inputNames: { id: 'workflowId' },
    agent: {
      tool: 'list_workflow_runs',
      title: "List a workflow's runs",
      description:
        "A workflow's runs, newest first, as GET /v1/workflows/{id}/runs: runId, status, trigger, startedAt, " +
        'finishedAt; `status` lists only runs with that status.',
      effect: 'read',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/runs/{runId}',
    group: 'workflows',
    operationId: 'getWorkflowRun',
    sdk: { method: 'workflows.runs.get', waitUntilDone: 'run' },
    etag: true,
    summary: "Fetch a run's status and durable outputs",
    description:
      '`status` is `running`, `success`, `partial`, `failed` (the run itself could not complete) or ' +
      '`canceled`. A step whose `if` was false is `skipped`; a step with `retry` lists its `attempts`. With ' +
      '`includeStepOutputs=true`, the persisted output of each step of a run started with `includeStepOutputs`. ' +
      'A secret a step produced (a minted token) is kept as `{"redacted": true, "jti", "expiresAt"}`.',
    tag: 'Workflows',
    scope: 'workflows:read',
    get params() {
      return runParams();
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
    inputNames: { id: 'workflowId' },
    agent: {
      tool: 'get_workflow_run',
      title: 'Get a workflow run',
      description:
        'A workflow run exactly as GET /v1/workflows/{id}/runs/{runId} shows it under `run`: status, ok, ' +
        'result, files, logs, failedSteps; with `includeStepOutputs`, the persisted output of each step.',
      effect: 'read',
      answer: 'run',
    },
  }),
  route({
    method: 'POST',
    path: '/v1/workflows/{id}/runs/{runId}/cancel',
    group: 'workflows',
    operationId: 'cancelWorkflowRun',
    sdk: 'workflows.runs.cancel',
    answersEtag: 'run',
    summary: 'Cancel a run',
    description:
      'An unfinished run stops before its next step and ends `canceled` (`error.code` ' +
      '`workflow_run_canceled`); a step in flight is recorded as failed with `step_interrupted`, and the ' +
      'steps before it keep their results. A finished run answers 409 `workflow_run_not_cancelable` with its ' +
      '`runStatus`. ' +
      'Repeating a cancel changes nothing more (the second answers 409, or with the same ' +
      '`Idempotency-Key` the first answer again).',
    tag: 'Workflows',
    scope: 'workflows:run',
    idempotency: 'keyed',
    get params() {
      return runParams();
    },
    get response() {
      return z.object({ run: wf.workflowRunSchema() });
    },
    errors: ['not_found', 'workflow_run_not_cancelable'],
  }),
  route({
    method: 'POST',
    path: '/v1/workflows/{id}/runs/{runId}/rerun',
    group: 'workflows',
    operationId: 'rerunWorkflowRun',
    sdk: 'workflows.runs.rerun',
    summary: 'Run a run again',
    description:
      'Starts a new run with the input of `runId`, on the version it ran (`version: same`, the default) or ' +
      'the current one (`latest`), answered as POST /v1/workflows/{id}/run answers (200 with the finished ' +
      'run, or 202 `{runId}`). Its `trigger` is `{type: "rerun", rerunOf}`. Counted and limited like any run ' +
      '(429 `workflow_quota_exceeded`); the input is checked against the input schema of the version it ' +
      'runs. Honours Idempotency-Key.',
    tag: 'Workflows',
    scope: 'workflows:run',
    idempotency: 'keyed',
    get params() {
      return runParams();
    },
    get body() {
      return wf.rerunBodySchema();
    },
    get response() {
      return wf.syncRunResponseSchema();
    },
    get alsoAnswers() {
      return acceptedRunAnswer();
    },
    errors: ['not_found', 'workflow_quota_exceeded', 'service_unavailable'],
    examples: { request: { version: 'same', mode: 'sync' } },
  }),
] as const;
