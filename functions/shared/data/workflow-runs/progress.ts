import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingAttempts, WorkflowRunRecord } from '../../types/workflows';
import { ddb, isConditionalCheckFailed, tableName } from '../client';
import { encodeOutputs } from './outputs';
import { WorkflowRunMovedError, type WorkflowRunProgress, workflowRunKey } from './runs';

/**
 * The writes of a run between its creation and its final move (`workflow-runs.ts` owns the item): the
 * async engine's claim of a step and the progress a runner records. Each is conditional on the run still
 * running at the cursor (and, for the engine, at its turn), and answers `WorkflowRunMovedError` otherwise.
 */

/** The run is at turn `:turn` (a run not yet driven by the engine has no turn: turn 0). */
const turnIs = (turn: number) =>
  turn === 0 ? '(attribute_not_exists(#turn) OR #turn = :turn)' : '#turn = :turn';

const conditional = async (runId: string, command: UpdateCommand): Promise<void> => {
  try {
    await ddb.send(command);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new WorkflowRunMovedError(runId);
    throw error;
  }
};

/**
 * Claims step `index` for the engine's turn `turn` and marks it started: a step is started at most once,
 * by the one message (or copy of it) whose turn it is, never while another claim stands.
 */
export const beginWorkflowStep = (run: WorkflowRunRecord, index: number, turn: number, now: Date) =>
  conditional(
    run.runId,
    new UpdateCommand({
      TableName: tableName(),
      Key: workflowRunKey(run.companyId, run.runId),
      UpdateExpression: 'SET #current = :current, updatedAt = :now',
      ConditionExpression: `#status = :running AND #cursor = :index AND attribute_not_exists(#current) AND ${turnIs(turn)}`,
      ExpressionAttributeNames: {
        '#current': 'current',
        '#status': 'status',
        '#cursor': 'cursor',
        '#turn': 'turn',
      },
      ExpressionAttributeValues: {
        ':current': { index, startedAt: now.toISOString() },
        ':running': 'running',
        ':index': index,
        ':turn': turn,
        ':now': now.toISOString(),
      },
    }),
  );

/**
 * Records progress from cursor `from` (steps ran since then); with `handedOffAt`, the sync run's hand-off to
 * the async engine; with `pending`, the attempts of the step at the cursor while its retry waits (cleared
 * otherwise); with `turn`, the engine's turn it ends (conditional on it) and the next. Clears the
 * started-step marker.
 */
export const saveWorkflowRunProgress = (
  run: Pick<WorkflowRunRecord, 'companyId' | 'runId'>,
  from: number,
  progress: WorkflowRunProgress,
  now: Date,
  options: {
    handedOffAt?: string;
    mode?: 'async';
    pending?: PendingAttempts;
    turn?: { from: number; to: number };
  } = {},
) => {
  const { handedOffAt, pending, turn } = options;
  return conditional(
    run.runId,
    new UpdateCommand({
      TableName: tableName(),
      Key: workflowRunKey(run.companyId, run.runId),
      UpdateExpression:
        'SET #cursor = :cursor, logs = :logs, outputs = :outputs, files = :files, executionTimeMs = :ms, ' +
        `updatedAt = :now${handedOffAt ? ', handedOffAt = :handedOffAt, #mode = :mode' : ''}` +
        `${turn ? ', #turn = :next' : ''}` +
        `${pending ? ', pendingAttempts = :pending REMOVE #current' : ' REMOVE #current, pendingAttempts'}`,
      ConditionExpression: `#status = :running AND #cursor = :from${turn ? ` AND ${turnIs(turn.from)}` : ''}`,
      ExpressionAttributeNames: {
        '#cursor': 'cursor',
        '#status': 'status',
        '#current': 'current',
        ...(handedOffAt ? { '#mode': 'mode' } : {}),
        ...(turn ? { '#turn': 'turn' } : {}),
      },
      ExpressionAttributeValues: {
        ':cursor': progress.cursor,
        ':logs': progress.logs,
        ':outputs': encodeOutputs(progress.outputs),
        ':files': progress.files,
        ':ms': progress.executionTimeMs,
        ':running': 'running',
        ':from': from,
        ':now': now.toISOString(),
        ...(handedOffAt ? { ':handedOffAt': handedOffAt, ':mode': 'async' } : {}),
        ...(pending ? { ':pending': pending } : {}),
        ...(turn ? { ':turn': turn.from, ':next': turn.to } : {}),
      },
    }),
  );
};
