import { listRunEntries } from '../../data/workflow-runs/entries';
import {
  deleteWorkflowHead,
  getWorkflowHead,
  getWorkflowVersion,
  listWorkflowHeads,
  listWorkflowVersions,
  putWorkflowVersion,
  type WorkflowHead,
  WorkflowLimitReachedError,
  WorkflowVersionConflictError,
} from '../../data/workflows';
import { AppError, type FieldError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import {
  WORKFLOW_ID_PATTERN,
  type WorkflowDefinition,
  type WorkflowRunStatus,
  type WorkflowVersion,
} from '../../types/workflows';
import { companyLimits } from '../company-limits';
import { DEFAULT_JOB_PAGE, listCursor, MAX_LIST_PAGE, type PageRequest, pageById } from '../pages';
import { readCondition } from './conditions';
import { definitionProblems, normaliseDefinition } from './validate-definition';
import { removeTriggers, saveWithTriggers } from './workflow-schedules';

/**
 * Company workflow definitions, saved by `PUT /v1/workflows/{id}` and the operator CLI (`admin workflows
 * put`) through `saveWorkflow`: the whole document validated (every violation by JSON pointer), then stored
 * as the next version; a new workflow takes a place of the plan's `workflows` (403
 * `workflow_limit_reached`). `ifMatch` (the `If-Match` header) must name the tag of the current workflow
 * as `GET /v1/workflows/{id}` answers it (412 `precondition_failed`; a missing workflow matches nothing).
 */
const preconditionFailed = () =>
  new AppError('precondition_failed', 'The workflow does not match If-Match; read it again.');

const requireMatch = (ifMatch: string | undefined, current: WorkflowHead | undefined) => {
  if (ifMatch === undefined) return;
  if (!current || !ifMatchHolds(ifMatch, etagOf({ workflow: toPublicWorkflow(current) })))
    throw preconditionFailed();
};

export const saveWorkflow = async (
  companyId: string,
  doc: unknown,
  now: Date,
  options: {
    ifMatch?: string | undefined;
    /** Prefixed to every pointer (`/body` over the API). */
    pointerPrefix?: string;
    /** Violations the caller found in the request itself, listed with the definition's own. */
    problems?: FieldError[];
    /** What runs started by the definition's triggers may do (default: every scope, an operator's save). */
    triggerScopes?: readonly string[];
  } = {},
) => {
  const prefix = options.pointerPrefix ?? '';
  const problems = [
    ...(options.problems ?? []),
    ...(await definitionProblems(doc)).map((p) => ({
      ...p,
      pointer: prefix && p.pointer === '/' ? prefix : `${prefix}${p.pointer}`,
    })),
  ];
  if (problems.length > 0) throw new ValidationError(problems, 'The workflow definition is not valid.');
  const limits = await companyLimits(companyId);
  try {
    const definition = await normaliseDefinition(doc as WorkflowDefinition);
    const { head, created } = await saveWithTriggers(
      companyId,
      definition,
      now,
      (alongside) =>
        putWorkflowVersion(companyId, definition, now, {
          limit: limits.workflows,
          check: (current) => requireMatch(options.ifMatch, current),
          alongside,
        }),
      options.triggerScopes,
    );
    return { id: head.workflowId, version: head.version, created, workflow: toPublicWorkflow(head) };
  } catch (error) {
    if (error instanceof WorkflowLimitReachedError) {
      throw new AppError(
        'workflow_limit_reached',
        `The plan allows ${error.limit} workflows; delete one first.`,
        { extensions: { limit: error.limit } },
      );
    }
    if (error instanceof WorkflowVersionConflictError) {
      if (options.ifMatch !== undefined) throw preconditionFailed();
      throw new AppError('conflict', 'The workflow was saved at the same moment elsewhere; save it again.');
    }
    throw error;
  }
};

export const requireWorkflow = async (companyId: string, workflowId: string): Promise<WorkflowHead> => {
  const head = await getWorkflowHead(companyId, workflowId);
  if (!head) throw new NotFoundError('No workflow with this id.');
  return head;
};

/** The workflow as API consumers see it. */
export const toPublicWorkflow = (head: WorkflowHead) => ({
  id: head.workflowId,
  version: head.version,
  name: head.definition.name,
  description: head.definition.description ?? null,
  input: head.definition.input ?? { type: 'object' },
  steps: head.definition.steps.map((s) => ({
    id: s.id,
    action: s.action,
    with: s.with ?? {},
    allowFailure: s.allowFailure ?? false,
    ...(s.if === undefined ? {} : { if: readCondition(s.if) }),
    ...(s.retry === undefined ? {} : { retry: s.retry }),
    ...(s.forEach === undefined ? {} : { forEach: s.forEach }),
    ...(s.concurrency === undefined ? {} : { concurrency: s.concurrency }),
  })),
  return: head.definition.return ?? null,
  on: head.definition.on ?? null,
  createdAt: head.createdAt,
  updatedAt: head.updatedAt,
});

export const getWorkflow = async (companyId: string, workflowId: string) =>
  toPublicWorkflow(await requireWorkflow(companyId, workflowId));

/** A saved version as the API shows it: the definition of that version, as GET shows the current one. */
const toPublicVersion = (version: WorkflowVersion) =>
  toPublicWorkflow({
    workflowId: version.workflowId,
    version: version.version,
    definition: version.definition,
    createdAt: version.createdAt,
    updatedAt: version.createdAt,
  });

const VERSION_CURSOR = /^[1-9][0-9]{0,5}$/;

/** A page of a workflow's saved versions, oldest first (`GET /v1/workflows/{id}/versions`). */
export const listWorkflowVersionPage = async (
  companyId: string,
  workflowId: string,
  request: PageRequest,
) => {
  await requireWorkflow(companyId, workflowId);
  const after = listCursor(request.cursor, VERSION_CURSOR);
  const { versions, more } = await listWorkflowVersions(companyId, workflowId, {
    limit: request.limit ?? MAX_LIST_PAGE,
    after: after === undefined ? undefined : Number(after),
  });
  const last = versions.at(-1);
  return {
    versions: versions.map((v) => ({ ...toPublicVersion(v), savedAt: v.createdAt })),
    nextCursor: more && last ? String(last.version) : null,
  };
};

/** One saved version (`GET /v1/workflows/{id}/versions/{version}`); 404 for a version never saved. */
export const getWorkflowVersionOf = async (companyId: string, workflowId: string, version: number) => {
  await requireWorkflow(companyId, workflowId);
  const saved = await getWorkflowVersion(companyId, workflowId, version);
  if (!saved) throw new NotFoundError(`The workflow has no version ${version}.`);
  return { ...toPublicVersion(saved), savedAt: saved.createdAt };
};

/**
 * A page of a workflow's runs, newest first (`GET /v1/workflows/{id}/runs`): an unknown workflow is 404; the
 * cursor is the id of the last run shown.
 */
export const listWorkflowRuns = async (
  companyId: string,
  workflowId: string,
  request: PageRequest & { status?: WorkflowRunStatus | undefined },
) => {
  await requireWorkflow(companyId, workflowId);
  return listRunEntries(companyId, workflowId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor: listCursor(request.cursor, /^wr_[0-9a-z]{1,64}$/),
    status: request.status,
  });
};

const summaryOf = (head: WorkflowHead) => ({
  id: head.workflowId,
  version: head.version,
  name: head.definition.name,
  description: head.definition.description ?? null,
  steps: head.definition.steps.length,
  updatedAt: head.updatedAt,
});

/** Every workflow of the company, by id (the operator CLI). */
export const workflowSummaries = async (companyId: string) =>
  (await listWorkflowHeads(companyId)).map(summaryOf);

/** A page of the company's workflows, by id (`GET /v1/workflows`). */
export const listWorkflows = async (companyId: string, request: PageRequest) => {
  const heads = await listWorkflowHeads(companyId);
  const { page, nextCursor } = pageById(heads, (head) => head.workflowId, request, {
    defaultLimit: MAX_LIST_PAGE,
    idPattern: WORKFLOW_ID_PATTERN,
  });
  return { workflows: page.map(summaryOf), nextCursor };
};

/**
 * Deletes a workflow, then its trigger item and schedule; runs in flight finish on the version they started
 * with (versions stay).
 */
export const deleteWorkflow = async (companyId: string, workflowId: string, now: Date, ifMatch?: string) => {
  try {
    if (!(await deleteWorkflowHead(companyId, workflowId, now, (current) => requireMatch(ifMatch, current))))
      throw new NotFoundError('No workflow with this id.');
  } catch (error) {
    if (!(error instanceof WorkflowVersionConflictError)) throw error;
    if (ifMatch !== undefined) throw preconditionFailed();
    throw new AppError('conflict', 'The workflow was changed at the same moment elsewhere; delete it again.');
  }
  await removeTriggers(companyId, workflowId);
  return { id: workflowId, deleted: true as const };
};

/** Saved versions never change: a process keeps the ones its runs read. */
const versions = new Map<string, WorkflowDefinition>();

export const definitionOfRun = async (
  companyId: string,
  workflowId: string,
  version: number,
): Promise<WorkflowDefinition> => {
  const key = `${companyId}/${workflowId}/${version}`;
  const cached = versions.get(key);
  if (cached) return cached;
  const stored = await getWorkflowVersion(companyId, workflowId, version);
  if (!stored) throw new Error(`Workflow ${workflowId} version ${version} is missing`);
  if (versions.size > 200) versions.clear();
  versions.set(key, stored.definition);
  return stored.definition;
};
