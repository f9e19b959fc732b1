import { listUnfinishedWorkflowRuns } from '../shared/data/workflow-runs/runs';
import { type RecoveryCounts, recoverUnfinishedJobs } from '../shared/domain/jobs/recovery';
import { releaseDueScheduledMessages } from '../shared/domain/messages/scheduled';
import { resumeUndeliveredMessages } from '../shared/domain/messages/undelivered';
import { SPEECH_JOB_TYPE } from '../shared/domain/speech-jobs';
import { transcodeJobs } from '../shared/domain/transcodes';
import { transcriptionJobs } from '../shared/domain/transcriptions';
import { failRun, resumeWorkflowRun } from '../shared/domain/workflows/runs';

/**
 * Start-up recovery of the local stack. No execution nor queue message (but the `webhook-delivery` queue's, kept on disk) survives the previous run (a crash,
 * or a stop that did not wait for them; on AWS both are durable), so every piece of work still unfinished at start-up
 * was interrupted and is resumed or settled here, never left running.
 *
 * Each kind of work names where its unfinished items are (a sparse index partition that holds only those:
 * start-up reads no history, so its time does not grow with the table) and what becomes of one (webhook deliveries need nothing here: their
 * queue keeps its messages on disk, as SQS does, `queues.ts`):
 * - jobs of every job engine type (transcodes, transcriptions, speech jobs): settled by the engine's recovery
 *   (`domain/jobs/recovery.ts`), `failed` with code `interrupted` (lease cleared, queue slot released, the
 *   `failed` event raised), retryable by the tenant where the type has retry;
 * - async workflow runs: resumed from their cursor by a new `workflow-run` queue message for their turn; sync runs (their
 *   caller's connection is gone) `failed` with `workflow_run_failed` (`docs/decisions/0004-*.md`);
 * - messages still `queued` (answered 202, their delivery execution gone or never started): delivered by a
 *   new execution (`domain/messages/undelivered.ts`), so every accepted message ends `sent` or `failed`;
 * - messages still `scheduled` whose time passed while the stack was down (the local scheduler fires no missed
 *   time): released and delivered now (`domain/messages/scheduled.ts`).
 *
 * A new job type adds its `jobs(…)` entry to `UNFINISHED_WORK`. Events the table's stream had not handed over yet are
 * not replayed here: the stream goes on from its checkpoint (`event-stream.ts`).
 */
type Outcome = 'resumed' | 'failed' | 'moved';

interface UnfinishedWork {
  name: string;
  recover: (now: Date) => Promise<Record<Outcome, number>>;
}

/** One kind of work: its unfinished items, and what becomes of one (`moved`: it changed meanwhile). */
const work = <T>(
  name: string,
  list: () => Promise<T[]>,
  recoverOne: (item: T, now: Date) => Promise<Outcome>,
): UnfinishedWork => ({
  name,
  recover: async (now) => {
    const counts: Record<Outcome, number> = { resumed: 0, failed: 0, moved: 0 };
    for (const item of await list()) counts[await recoverOne(item, now)] += 1;
    return counts;
  },
});

/** The jobs of one type of the job engine, settled by its recovery (`domain/jobs/recovery.ts`). */
const jobs = (name: string, recover: (now: Date) => Promise<RecoveryCounts>): UnfinishedWork => ({
  name,
  recover: async (now) => ({ resumed: 0, ...(await recover(now)) }),
});

const INTERRUPTED_SYNC_RUN = 'The run was interrupted by a restart of the platform; run the workflow again.';

export const UNFINISHED_WORK: readonly UnfinishedWork[] = [
  jobs('transcodes', (now) => recoverUnfinishedJobs(transcodeJobs, now)),
  jobs('transcriptions', (now) => recoverUnfinishedJobs(transcriptionJobs, now)),
  jobs('speech jobs', (now) => recoverUnfinishedJobs(SPEECH_JOB_TYPE, now)),
  work('workflow runs', listUnfinishedWorkflowRuns, async (run) => {
    if (run.mode === 'async') {
      await resumeWorkflowRun(run);
      return 'resumed';
    }
    await failRun(run.companyId, run.runId, INTERRUPTED_SYNC_RUN);
    return 'failed';
  }),
  {
    name: 'message deliveries',
    // Nothing delivers here yet: every queued message is restarted, however recently it changed.
    recover: async (now) => {
      const { resumed, failed } = await resumeUndeliveredMessages(now, { quietForMs: 0 });
      return { resumed, failed, moved: 0 };
    },
  },
  {
    name: 'scheduled messages',
    // After the deliveries above: a message released here starts its delivery itself, so only once.
    recover: async (now) => {
      const { released, failed, unchanged } = await releaseDueScheduledMessages(now, { lateByMs: 0 });
      return { resumed: released, failed, moved: unchanged };
    },
  },
];

/** Resumes or settles every unfinished piece of work; answers the counts of each kind. */
export const recoverUnfinishedWork = async (
  now: Date,
  kinds: readonly UnfinishedWork[] = UNFINISHED_WORK,
): Promise<Record<string, Record<Outcome, number>>> => {
  const counts: Record<string, Record<Outcome, number>> = {};
  for (const kind of kinds) counts[kind.name] = await kind.recover(now);
  return counts;
};
