import { setTimeout as sleep } from 'node:timers/promises';
import {
  claimForEachItem,
  type ForEachItemAddress,
  type ForEachItemRecord,
  listForEachItems,
  recordForEachItem,
} from '../../data/workflow-runs/for-each-items';
import { StepOutcomeError } from '../../step-outcomes';
import type { StepAttempt, WorkflowStep } from '../../types/workflows';
import type { ActionContext } from './actions';
import {
  concurrencyOf,
  FOREACH_ITEM_OUTPUT_MAX_BYTES,
  forEachList,
  forEachStepResult,
  type ItemResult,
} from './for-each';
import type { ReferenceScope } from './references';
import { redactSecrets, type SecretRegistry } from './secrets';
import { type StepResult, stepBoundMs } from './step-runner';
import { attemptTurn, conditionResult, notRunResult } from './step-turn';

/**
 * One turn of a `forEach` step (`for-each.ts`), the same in sync runs and in the async engine: the items
 * without a result run, `concurrency` at once, each claimed before it runs and recorded as it ends
 * (`for-each-items.ts`), so a turn taken over after a crash runs only what has no result and never an item
 * twice (one claimed by a runner now gone is recorded failed with `step_interrupted`).
 *
 * The runner says which attempt may start (`mayStart`: its deadline, its message's work budget, the run's
 * compute budget); an item not started, or whose retry waits longer than allowed (it is recorded `waiting`),
 * is left to the next turn: the turn answers `paused` with when it is due. Every item's attempts count as
 * step time (`computeMs`): five items at once for a second are five seconds of the compute budget.
 */
export type ForEachTurn =
  | { kind: 'done'; result: StepResult; computeMs: number }
  | { kind: 'paused'; computeMs: number; dueInMs: number };

/** Whether an attempt bounded by `boundMs` may start after `waitMs`, the turn having used `computeMs`. */
export type MayStart = (waitMs: number, boundMs: number, computeMs: number) => boolean;

const INTERRUPTED = 'The item was interrupted and is not run again.';

const resultOfRecord = (record: ForEachItemRecord): ItemResult | undefined => {
  if (record.status !== 'succeeded' && record.status !== 'failed') return undefined;
  return {
    index: record.index,
    status: record.status,
    ...(record.output === undefined ? {} : { output: JSON.parse(record.output) }),
    ...(record.error ? { error: record.error } : {}),
    attempts: record.attempts.length,
    durationMs: record.durationMs,
  };
};

/** What an item's ended attempts came to: its result in memory and the record kept (secrets redacted). */
const endedItem = (
  index: number,
  result: StepResult,
  attempts: readonly StepAttempt[],
  durationMs: number,
  secrets: SecretRegistry,
): { item: ItemResult; record: Omit<ForEachItemRecord, 'startedAt'> } => {
  for (const [secret, standIn] of result.secrets ?? []) secrets.set(secret, standIn);
  const { log } = result;
  const kept =
    result.output === undefined ? undefined : JSON.stringify(redactSecrets(result.output, secrets));
  const tooLarge = kept !== undefined && Buffer.byteLength(kept) > FOREACH_ITEM_OUTPUT_MAX_BYTES;
  const error = tooLarge
    ? {
        code: 'foreach_item_output_too_large',
        message: `The item's output is over ${FOREACH_ITEM_OUTPUT_MAX_BYTES} bytes of JSON.`,
      }
    : log.status === 'failed'
      ? { code: log.code ?? 'internal', message: log.userMessage ?? 'The item failed.' }
      : undefined;
  const output = tooLarge ? undefined : result.output;
  const item: ItemResult = {
    index,
    status: error ? 'failed' : 'succeeded',
    ...(output === undefined ? {} : { output }),
    ...(error ? { error } : {}),
    attempts: attempts.length,
    durationMs,
  };
  return {
    item,
    record: {
      index,
      status: item.status,
      attempts: [...attempts],
      durationMs,
      ...(output === undefined || tooLarge ? {} : { output: kept }),
      ...(error ? { error: redactSecrets(error, secrets) } : {}),
    },
  };
};

export const takeForEachTurn = async (
  step: WorkflowStep,
  scope: ReferenceScope,
  ctx: ActionContext,
  secrets: SecretRegistry,
  at: ForEachItemAddress,
  mayStart: MayStart,
): Promise<ForEachTurn> => {
  const now = new Date();
  const unrun = conditionResult(step, scope, now);
  if (unrun) return { kind: 'done', result: unrun, computeMs: 0 };
  let list: unknown[];
  try {
    list = forEachList(step, scope, (await ctx.limits()).workflowForEachItems);
  } catch (error) {
    if (!(error instanceof StepOutcomeError)) throw error;
    return { kind: 'done', result: notRunResult(step, error, now), computeMs: 0 };
  }
  const results = new Map<number, ItemResult>();
  const waiting = new Map<number, ForEachItemRecord>();
  let startedAt = now.toISOString();
  for (const record of (await listForEachItems(at)).values()) {
    if (record.startedAt < startedAt) startedAt = record.startedAt;
    if (record.status === 'waiting') waiting.set(record.index, record);
    else if (record.status !== 'started') {
      const ended = resultOfRecord(record);
      if (ended) results.set(record.index, ended);
    } else {
      // Claimed by a runner that is gone (this turn holds the step): never run twice.
      const error = { code: 'step_interrupted', message: INTERRUPTED };
      const cut: StepAttempt = {
        startedAt: record.startedAt,
        durationMs: 0,
        status: 'failed',
        code: error.code,
      };
      const interrupted = {
        ...record,
        status: 'failed' as const,
        attempts: [...record.attempts, cut],
        error,
      };
      const ended = resultOfRecord(interrupted);
      if (ended && (await recordForEachItem(at, interrupted))) results.set(record.index, ended);
    }
  }

  const bound = stepBoundMs(step);
  let computeMs = 0;
  let stopped = false;
  const runItem = async (index: number): Promise<void> => {
    const held = waiting.get(index);
    const waitMs = held?.notBefore ? Math.max(0, Date.parse(held.notBefore) - Date.now()) : 0;
    if (!mayStart(waitMs, bound, computeMs)) {
      // An item due now that may not start: nothing more starts this turn.
      if (waitMs === 0) stopped = true;
      return;
    }
    if (waitMs > 0) await sleep(waitMs);
    if (!(await claimForEachItem(at, index, new Date(), held))) return;
    waiting.delete(index);
    let attempts: StepAttempt[] = held?.attempts ?? [];
    let durationMs = held?.durationMs ?? 0;
    const itemScope = { ...scope, item: list[index], index };
    for (;;) {
      const turn = await attemptTurn(step, itemScope, ctx, secrets, attempts);
      if (turn.kind === 'retry') {
        const spent = turn.attempts.at(-1)?.durationMs ?? 0;
        computeMs += spent;
        durationMs += spent;
        attempts = turn.attempts;
        if (mayStart(turn.waitMs, bound, computeMs)) {
          await sleep(turn.waitMs);
          continue;
        }
        const notBefore = new Date(Date.now() + turn.waitMs).toISOString();
        const record = { index, status: 'waiting' as const, attempts, durationMs, notBefore };
        if (await recordForEachItem(at, record)) waiting.set(index, { ...record, startedAt });
        return;
      }
      const { result } = turn;
      computeMs += result.log.durationMs;
      durationMs += result.log.durationMs;
      const all = result.log.attempts ?? [
        ...attempts,
        {
          startedAt: result.log.startedAt,
          durationMs: result.log.durationMs,
          status: result.log.status === 'succeeded' ? 'succeeded' : 'failed',
        },
      ];
      const { item, record } = endedItem(index, result, all, durationMs, secrets);
      if (await recordForEachItem(at, record)) results.set(index, item);
      return;
    }
  };

  const queue = list.map((_, index) => index).filter((index) => !results.has(index));
  const worker = async () => {
    for (let index = queue.shift(); index !== undefined && !stopped; index = queue.shift()) {
      await runItem(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrencyOf(step), queue.length) }, worker));

  if (results.size === list.length) {
    return { kind: 'done', result: forEachStepResult(step, [...results.values()], startedAt), computeMs };
  }
  const left = list.map((_, index) => index).filter((index) => !results.has(index));
  const dueInMs = left.every((index) => waiting.has(index))
    ? Math.min(...left.map((index) => Date.parse(waiting.get(index)?.notBefore ?? '') - Date.now()))
    : 0;
  return { kind: 'paused', computeMs, dueInMs: Math.max(0, Number.isNaN(dueInMs) ? 0 : dueInMs) };
};
