import type { EventRecord } from '../../data/events';
import { getWorkflowTrigger, listEventTriggers } from '../../data/workflow-triggers';
import { dynadataTypeFilterTakes } from '../../types/events';
import { TRIGGER_EVENT_TYPES } from '../../types/workflow-triggers';
import { startTriggeredRun, type TriggeredRunOutcome, triggeredRunId } from './triggered-runs';

/**
 * What starts triggered runs: the event dispatcher, for each event of the company (`startEventRuns`), and
 * the schedule target (EventBridge Scheduler on AWS, the local stack's scheduler), for each time a
 * workflow's schedule is due (`startScheduledRun`). Both go through `startTriggeredRun`, once per trigger.
 */
const TRIGGERING: ReadonlySet<string> = new Set(TRIGGER_EVENT_TYPES);

/**
 * One run of each workflow of the company whose `on.events` lists the event's type (and whose
 * `on.dynadataTypes`, when set, the item's type) and that subscribed before the event was raised. The run
 * starts at the event's workflow hop: past `MAX_WORKFLOW_HOP` it is recorded refused (a workflow whose
 * writes re-trigger it ends there). Returns how many runs this call started or recorded refused.
 */
export const startEventRuns = async (event: EventRecord, now = new Date()): Promise<number> => {
  if (!TRIGGERING.has(event.type)) return 0;
  const triggers = (await listEventTriggers(event.companyId, event.type)).filter(
    (t) => t.since <= event.createdAt && dynadataTypeFilterTakes(t.dynadataTypes, event),
  );
  let started = 0;
  for (const trigger of triggers) {
    const outcome = await startTriggeredRun({
      companyId: event.companyId,
      workflowId: trigger.workflowId,
      runId: triggeredRunId(Date.parse(event.createdAt), `${event.id}#${trigger.workflowId}`),
      trigger: {
        type: 'event',
        event: { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data },
      },
      scopes: trigger.scopes,
      accepts: (definition) =>
        definition.on?.events?.includes(event.type) === true &&
        dynadataTypeFilterTakes(definition.on.dynadataTypes, event),
      hop: event.hop ?? 0,
      now,
    });
    if (outcome === 'started' || outcome === 'refused') started++;
  }
  return started;
};

/** What a schedule's target receives: the workflow, and the time the schedule was due (ISO 8601). */
export interface ScheduledRunInput {
  companyId: string;
  workflowId: string;
  scheduledAt: string;
}

/** The run of a workflow's schedule at `scheduledAt` (once per workflow and time, however often delivered). */
export const startScheduledRun = async (
  input: ScheduledRunInput,
  now = new Date(),
): Promise<TriggeredRunOutcome> => {
  const due = Date.parse(input.scheduledAt);
  if (Number.isNaN(due)) throw new Error(`scheduledAt ${input.scheduledAt} is not a time`);
  const trigger = await getWorkflowTrigger(input.companyId, input.workflowId);
  const schedule = trigger?.schedule;
  if (!trigger || schedule === undefined) return 'skipped';
  const scheduledAt = new Date(due).toISOString();
  return startTriggeredRun({
    companyId: input.companyId,
    workflowId: input.workflowId,
    runId: triggeredRunId(due, `${input.companyId}#${input.workflowId}#${scheduledAt}`),
    trigger: { type: 'schedule', schedule, scheduledAt },
    scopes: trigger.scopes,
    accepts: (definition) => definition.on?.schedule === schedule,
    now,
  });
};
