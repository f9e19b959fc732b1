import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingAttempts, WorkflowRunRecord } from '../../types/workflows';
import { ddb, isConditionalCheckFailed, tableName } from '../client';
import { packJsonValue } from '../packed-json';
import { encodeOutputs } from './outputs';
import { WorkflowRun, WorkflowRunMovedError, type WorkflowRunProgress, workflowRunKey } from './runs';

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
 * by the one message (or copy of it) whose turn it is, never while another claim stands. With `takeOver`,
 * the claim of a holder that is gone is taken instead (a `forEach` step goes on from its recorded items).
 */
export const beginWorkflowStep = (
  run: WorkflowRunRecord,
  index: number,
  turn: number,
  now: Date,
  options: { takeOver?: boolean } = {},
) =>
  conditional(
    run.runId,
    new UpdateCommand({
      TableName: tableName(),
      Key: workflowRunKey(run.companyId, run.runId),
      ...WorkflowRun.update(
        { set: { current: { index, startedAt: now.toISOString() }, updatedAt: now.toISOString() } },
        {
          expression: `#status = :running AND #cursor = :index AND ${
            options.takeOver ? '#current.#index = :index' : 'attribute_not_exists(#current)'
          } AND ${turnIs(turn)}`,
          names: {
            '#status': 'status',
            '#cursor': 'cursor',
            '#turn': 'turn',
            ...(options.takeOver ? { '#index': 'index' } : {}),
          },
          values: { ':running': 'running', ':index': index, ':turn': turn },
        },
      ),
    }),
  );

/**
 * Records progress from cursor `from` (steps ran since then); with `handedOffAt`, the sync run's hand-off to
 * the async engine; with `pending`, the attempts of the step at the cursor while its retry waits (cleared
 * otherwise); with `turn`, the engine's turn it ends (conditional on it) and the next. Clears the
 * started-step marker, or with `claim` sets it on the next step: the engine records a step and claims the
 * one it runs next in one write, under the conditions of both (running, at the cursor and turn recorded, so
 * no claim stands).
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
    /** The next step, claimed by this write for the same engine turn's message (see `beginWorkflowStep`). */
    claim?: { index: number; startedAt: string };
  } = {},
) => {
  const { handedOffAt, pending, turn, claim } = options;
  return conditional(
    run.runId,
    new UpdateCommand({
      TableName: tableName(),
      Key: workflowRunKey(run.companyId, run.runId),
      ...WorkflowRun.update(
        {
          set: {
            cursor: progress.cursor,
            logs: packJsonValue(progress.logs),
            outputs: packJsonValue(encodeOutputs(progress.outputs)),
            files: progress.files,
            executionTimeMs: progress.executionTimeMs,
            updatedAt: now.toISOString(),
            ...(handedOffAt ? { handedOffAt, mode: 'async' as const } : {}),
            ...(turn ? { turn: turn.to } : {}),
            ...(pending ? { pendingAttempts: pending } : {}),
            ...(claim ? { current: claim } : {}),
          },
          remove: [
            ...(claim ? [] : (['current'] as const)),
            ...(pending ? [] : (['pendingAttempts'] as const)),
          ],
        },
        {
          expression: `#status = :running AND #cursor = :from${turn ? ` AND ${turnIs(turn.from)}` : ''}`,
          names: { '#status': 'status' },
          values: { ':running': 'running', ':from': from, ...(turn ? { ':turn': turn.from } : {}) },
        },
      ),
    }),
  );
};
