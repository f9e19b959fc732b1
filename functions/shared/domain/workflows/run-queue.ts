import { sendToQueue } from '../../aws/queues';
import type { WorkflowRunRecord } from '../../types/workflows';

/**
 * The messages that drive async workflow runs through the `workflow-run` queue. A message names a run and
 * the turn it may take: the run item counts its turns (`turn`, each step or attempt recorded is one), and
 * the engine claims a step only at the turn its message names (`engine.ts`), so a second copy of a message
 * (SQS delivers at least once) finds its turn taken or passed and runs nothing. `resume` is the local
 * stack's start-up recovery: whatever held the run before is gone.
 *
 * Who sends one: the start of an async run, a sync run handing off and a triggered run (turn 0, before the
 * engine moved it), the engine for a retry's wait (delayed) or the rest of a run longer than one message's
 * work, and the local stack's recovery.
 */
export interface RunMessage {
  companyId: string;
  runId: string;
  turn: number;
  resume?: true;
}

/** Sends a run's message, to arrive after `delaySeconds` (at most SQS's 15 minutes; `sendToQueue`). */
export const sendRunMessage = (message: RunMessage, delaySeconds = 0): Promise<void> =>
  sendToQueue('workflow-run', message, delaySeconds);

/**
 * Hands a run that no engine moved yet (turn 0) to the engine, due after `delaySeconds` (a handed-off retry's
 * wait): a second start is a copy of the first.
 */
export const startRunEngine = (
  run: Pick<WorkflowRunRecord, 'companyId' | 'runId'>,
  delaySeconds = 0,
): Promise<void> => sendRunMessage({ companyId: run.companyId, runId: run.runId, turn: 0 }, delaySeconds);

/** Wakes an unfinished run again at its current turn (local start-up recovery: nothing holds it). */
export const resumeRunEngine = (run: Pick<WorkflowRunRecord, 'companyId' | 'runId' | 'turn'>) =>
  sendRunMessage({ companyId: run.companyId, runId: run.runId, turn: run.turn ?? 0, resume: true });

/** A message as the queue hands it over; undefined when it is not a run message (never retried). */
export const parseRunMessage = (body: string): RunMessage | undefined => {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { companyId, runId, turn, resume } = value;
    if (typeof companyId !== 'string' || companyId === '' || typeof runId !== 'string' || runId === '')
      return undefined;
    if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 0) return undefined;
    return { companyId, runId, turn, ...(resume === true ? { resume } : {}) };
  } catch {
    return undefined;
  }
};
