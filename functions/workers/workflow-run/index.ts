import { advanceWorkflowRun } from '../../shared/domain/workflows/engine';
import { failRun } from '../../shared/domain/workflows/runs';
import { createHandler } from '../../shared/pipeline/handler';

type StepTask = {
  action: 'step' | 'fail';
  companyId: string;
  runId: string;
  error?: { Error?: string; Cause?: string };
};

/**
 * Task worker of the `workflow-run` state machine. `action: step` runs the run's next step and answers
 * `{done}`; `action: fail` (the machine's failure path: a timeout, an engine error) marks the run `failed`.
 */
export const handler = createHandler(
  async (event: StepTask): Promise<{ done: boolean; waitSeconds?: number }> => {
    if (event.action === 'fail') {
      await failRun(
        event.companyId,
        event.runId,
        `The run could not complete (${event.error?.Error ?? 'error'}).`,
      );
      return { done: true };
    }
    return advanceWorkflowRun(event);
  },
  ({ companyId, runId }) => ({ companyId, runId }),
);
