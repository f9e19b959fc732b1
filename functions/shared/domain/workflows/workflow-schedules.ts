import { createHash } from 'node:crypto';
import { deleteSchedule, putSchedule } from '../../aws/scheduler';
import type { TransactItem } from '../../data/entity';
import {
  deleteWorkflowTrigger,
  getWorkflowTrigger,
  triggerItemOfVersion,
} from '../../data/workflow-triggers';
import { SCOPES } from '../../types/scopes';
import type { WorkflowDefinition } from '../../types/workflows';
import type { ScheduledRunInput } from './trigger-sources';

/**
 * The triggers of a definition follow its saves: its trigger item is written in the transaction that saves
 * the version, and its schedule (one EventBridge Scheduler schedule per workflow) is created or replaced
 * before the save and deleted after a save without one (when the version before had one) or the workflow's
 * deletion. A schedule left behind
 * by a failure in between starts nothing: its run is started only while the workflow's current definition
 * has that very schedule (`startScheduledRun`).
 */
export const scheduleNameOf = (companyId: string, workflowId: string): string =>
  `wf-${createHash('sha256').update(`${companyId}/${workflowId}`).digest('hex').slice(0, 48)}`;

/** The target's input: `<aws.scheduler.scheduled-time>` is replaced by EventBridge Scheduler with the due time. */
const scheduleInput = (companyId: string, workflowId: string): string =>
  JSON.stringify({
    companyId,
    workflowId,
    scheduledAt: '<aws.scheduler.scheduled-time>',
  } satisfies ScheduledRunInput);

/**
 * Saves a version with its triggers: `save` receives the transaction items that go with the version (the
 * trigger item, with `scopes`: what triggered runs may do, by default every scope, as an operator's save).
 */
export const saveWithTriggers = async <T>(
  companyId: string,
  definition: WorkflowDefinition,
  now: Date,
  save: (alongside: TransactItem[]) => Promise<T>,
  scopes: readonly string[] = SCOPES,
): Promise<T> => {
  const schedule = definition.on?.schedule;
  const name = scheduleNameOf(companyId, definition.id);
  if (schedule !== undefined) await putSchedule(name, schedule, scheduleInput(companyId, definition.id));
  const before = schedule === undefined ? await getWorkflowTrigger(companyId, definition.id) : undefined;
  const saved = await save([triggerItemOfVersion(companyId, definition, scopes, now)]);
  if (before?.schedule !== undefined) await deleteSchedule(name);
  return saved;
};

/** After a workflow's deletion: its trigger item and its schedule go too. */
export const removeTriggers = async (companyId: string, workflowId: string): Promise<void> => {
  const before = await getWorkflowTrigger(companyId, workflowId);
  if (!before) return;
  await deleteWorkflowTrigger(companyId, workflowId);
  if (before.schedule !== undefined) await deleteSchedule(scheduleNameOf(companyId, workflowId));
};
