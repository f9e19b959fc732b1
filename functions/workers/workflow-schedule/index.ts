import { type ScheduledRunInput, startScheduledRun } from '../../shared/domain/workflows/trigger-sources';
import { createHandler } from '../../shared/pipeline/handler';

/**
 * The target of workflow schedules: EventBridge Scheduler invokes it (the local stack's scheduler calls it
 * in-process) with the workflow and the time the schedule was due, and it starts that run once
 * (`startScheduledRun`: a delivery repeated by the scheduler finds its run). A malformed input fails the
 * invocation, so the scheduler's retries and dead-letter handling see it.
 */
export const handler = createHandler(
  async (event: ScheduledRunInput): Promise<{ outcome: string }> => ({
    outcome: await startScheduledRun(event),
  }),
  ({ companyId, workflowId }) => ({ companyId, workflowId }),
);
