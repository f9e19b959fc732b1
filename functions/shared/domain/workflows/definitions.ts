import { listRunEntries } from '../../data/workflow-run-entries';
import {
  deleteWorkflowHead,
  getWorkflowHead,
  getWorkflowVersion,
  listWorkflowHeads,
  putWorkflowVersion,
  type WorkflowHead,
  WorkflowVersionConflictError,
} from '../../data/workflows';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import type { WorkflowDefinition } from '../../types/workflows';
import { DEFAULT_JOB_PAGE, MAX_LIST_PAGE, type PageRequest, pageById } from '../pages';
import { definitionProblems, normaliseDefinition } from './definition';
import { removeTriggers, saveWithTriggers } from './workflow-schedules';

/**
 * Company workflow definitions: saved by operators (`admin workflows put`), read by API consumers. Saving
 * validates the whole document (every violation by JSON pointer) and stores it as the next version.
 */
export const saveWorkflow = async (
  companyId: string,
  doc: unknown,
  now: Date,
  /** What runs started by the definition's triggers may do (default: every scope, an operator's save). */
  triggerScopes?: readonly string[],
): Promise<{ id: string; version: number }> => {
  const problems = await definitionProblems(doc);
  if (problems.length > 0) throw new ValidationError(problems, 'The workflow definition is not valid.');
  try {
    const definition = await normaliseDefinition(doc as WorkflowDefinition);
    const head = await saveWithTriggers(
      companyId,
      definition,
      now,
      (alongside) => putWorkflowVersion(companyId, definition, now, alongside),
      triggerScopes,
    );
    return { id: head.workflowId, version: head.version };
  } catch (error) {
    if (error instanceof WorkflowVersionConflictError) {
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
  })),
  return: head.definition.return ?? null,
  on: head.definition.on ?? null,
  createdAt: head.createdAt,
  updatedAt: head.updatedAt,
});

export const getWorkflow = async (companyId: string, workflowId: string) =>
  toPublicWorkflow(await requireWorkflow(companyId, workflowId));

/**
 * A page of a workflow's runs, newest first (`GET /v1/workflows/{id}/runs`): an unknown workflow is 404; the
 * cursor is the id of the last run shown.
 */
export const listWorkflowRuns = async (companyId: string, workflowId: string, request: PageRequest) => {
  await requireWorkflow(companyId, workflowId);
  if (request.cursor !== undefined && !/^wr_[0-9a-z]{1,64}$/.test(request.cursor)) {
    throw new ValidationError([
      { pointer: '/query/cursor', message: 'is not a cursor of this list; start again without a cursor' },
    ]);
  }
  return listRunEntries(companyId, workflowId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor: request.cursor,
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
  const { page, nextCursor } = pageById(heads, (head) => head.workflowId, request, MAX_LIST_PAGE);
  return { workflows: page.map(summaryOf), nextCursor };
};

export const deleteWorkflow = async (companyId: string, workflowId: string, now: Date) => {
  if (!(await deleteWorkflowHead(companyId, workflowId, now)))
    throw new NotFoundError('No workflow with this id.');
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
