import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { runWorkflowTurns } from '../../shared/domain/workflows/engine';
import { parseRunMessage } from '../../shared/domain/workflows/run-queue';
import { failRun } from '../../shared/domain/workflows/runs';
import { logger } from '../../shared/observability/logger';
import { registerWorkflowActions } from '../../shared/operations/workflow-actions';
import { createHandler } from '../../shared/pipeline/handler';
import { WORKFLOW_RUN_MAX_RECEIVES } from '../../shared/types/queues';

// The steps run here: the operations offered to workflows join the engine's own actions.
registerWorkflowActions();

/**
 * The `workflow-run` queue's worker: each message moves one async run on (`domain/workflows/engine.ts`),
 * the messages of a batch at once, through Powertools Batch with a partial batch response: a message whose
 * handling failed comes back after the visibility timeout (and then takes over what it left behind), as does
 * a returning message that finds its step still leased; its last receive marks the run `failed`
 * (`workflow_run_failed`) without running anything, and the message moves to the dead-letter queue. A message
 * that is not a run message is logged and dropped: no retry could read it.
 */
const handleRecord = async (record: SQSRecord): Promise<void> => {
  const message = parseRunMessage(record.body);
  if (!message) {
    logger.error('queue message dropped: it is not a workflow run message', { messageId: record.messageId });
    return;
  }
  const receives = Number(record.attributes.ApproximateReceiveCount);
  if (receives >= WORKFLOW_RUN_MAX_RECEIVES) {
    // The last receive fails the run before anything else, so a run is never left `running` by a last
    // attempt that timed out or crashed; the message then goes to the dead-letter queue (alarmed).
    await failRun(message.companyId, message.runId, 'The run could not complete.');
    throw new Error(`workflow run ${message.runId} failed after ${receives} receives of its message`);
  }
  const outcome = await runWorkflowTurns(message, { returning: receives > 1 });
  if (outcome === 'busy' && receives > 1)
    // A returning message found its step still leased (its invocation came late): it must not be dropped,
    // for it is the run's only message; it comes back after the visibility timeout, past the lease.
    throw new Error(`workflow run ${message.runId}: the step in flight is still leased`);
  logger.debug('workflow run message handled', {
    messageId: record.messageId,
    runId: message.runId,
    outcome,
  });
};

export const handler = createHandler(
  (event: SQSEvent, context) =>
    processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
      processInParallel: true,
    }),
  (event) => ({ records: event.Records.length }),
);
