import { StepOutcomeError } from '../../step-outcomes';
import {
  FOREACH_DEFAULT_CONCURRENCY,
  FOREACH_MAX_CONCURRENCY,
  type WorkflowStep,
} from '../../types/workflows';
import { findAction } from './actions';
import { isWholeReference, type ReferenceScope, resolveReferences } from './references';
import type { StepResult } from './step-runner';

/**
 * `forEach` steps: the step's action runs once per element of a list, with `{{ item }}` (the element) and
 * `{{ index }}` (its position, from 0) in its `with`; `concurrency` items at once (1..10, default 1).
 *
 * - On save: `forEach` is one `{{ reference }}` (to the input, the trigger or an earlier step) or a list
 *   written out; `concurrency` only with `forEach`; `item` and `index` only in the `with` of such a step.
 * - At run time: a value that is no list fails the step with `foreach_not_array`, a list longer than the
 *   plan's `workflowForEachItems` with `foreach_too_many_items`; neither runs any item. `if` is decided once,
 *   for the whole step; `retry` applies to each item on its own.
 * - The step's output is `{ items: [{ index, status, output | error, attempts }], succeeded, failed }`, in
 *   index order. An item's output is at most `FOREACH_ITEM_OUTPUT_MAX_BYTES` of JSON (a larger one fails the
 *   item with `foreach_item_output_too_large`). The step fails with `foreach_items_failed` when an item
 *   failed, unless it has `allowFailure`: then failed items are let through and the step succeeds.
 */
export const FOREACH_ITEM_OUTPUT_MAX_BYTES = 16 * 1024;

const SHAPE = 'must be one {{ reference }} to a list, or a list';

export const forEachProblems = (
  step: Record<string, unknown>,
  at: string,
  add: (pointer: string, message: string) => void,
  /** Checks the references of a value (to earlier steps only; no `item` nor `index`). */
  checkReferences: (value: unknown, pointer: string) => void,
): void => {
  const { forEach, concurrency } = step;
  if (forEach === undefined) {
    if (concurrency !== undefined) add(`${at}/concurrency`, 'is allowed only with forEach');
    return;
  }
  if (Array.isArray(forEach) || (typeof forEach === 'string' && isWholeReference(forEach)))
    checkReferences(forEach, `${at}/forEach`);
  else add(`${at}/forEach`, SHAPE);
  if (
    concurrency !== undefined &&
    !(
      typeof concurrency === 'number' &&
      Number.isInteger(concurrency) &&
      concurrency >= 1 &&
      concurrency <= FOREACH_MAX_CONCURRENCY
    )
  )
    add(`${at}/concurrency`, `must be an integer from 1 to ${FOREACH_MAX_CONCURRENCY}`);
};

export const concurrencyOf = (step: WorkflowStep): number => step.concurrency ?? FOREACH_DEFAULT_CONCURRENCY;

const kindOf = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
};

/** The list the step loops over; throws the step's failure when it is no list or too long for the plan. */
export const forEachList = (step: WorkflowStep, scope: ReferenceScope, limit: number): unknown[] => {
  const list = resolveReferences(step.forEach, scope);
  if (!Array.isArray(list)) {
    throw new StepOutcomeError(
      'foreach_not_array',
      `forEach resolved to ${kindOf(list)}, not a list: no item ran.`,
    );
  }
  if (list.length > limit) {
    throw new StepOutcomeError(
      'foreach_too_many_items',
      `forEach resolved to ${list.length} items; the plan allows ${limit} per step: no item ran.`,
      { limit, items: list.length },
    );
  }
  return list;
};

/** What one item came to. */
export interface ItemResult {
  index: number;
  status: 'succeeded' | 'failed';
  output?: unknown;
  error?: { code: string; message: string };
  /** Attempts made (more than one with a `retry`). */
  attempts: number;
  /** Step time of its attempts, in milliseconds. */
  durationMs: number;
}

/** The step's result once every item has one: its output lists them all, in index order. */
export const forEachStepResult = (
  step: WorkflowStep,
  results: readonly ItemResult[],
  startedAt: string,
): StepResult => {
  const ordered = [...results].sort((a, b) => a.index - b.index);
  const failed = ordered.filter((r) => r.status === 'failed');
  const output = {
    items: ordered.map(({ durationMs: _d, ...item }) => item),
    succeeded: ordered.length - failed.length,
    failed: failed.length,
  };
  const action = findAction(step.action);
  const base = {
    step: step.id,
    action: step.action,
    startedAt,
    durationMs: ordered.reduce((sum, r) => sum + r.durationMs, 0),
  };
  const counts = `${ordered.length} items: ${output.succeeded} succeeded, ${output.failed} failed.`;
  const first = failed[0];
  if (!first || step.allowFailure) {
    return {
      log: { ...base, status: 'succeeded', message: counts },
      output,
      files: ordered.flatMap((r) => (r.status === 'succeeded' ? (action?.files?.(r.output) ?? []) : [])),
    };
  }
  const userMessage =
    `${failed.length} of ${ordered.length} items failed; ` +
    `item ${first.index}: ${first.error?.code ?? 'internal'}.`;
  return {
    log: { ...base, status: 'failed', message: userMessage, code: 'foreach_items_failed', userMessage },
    output,
    files: [],
  };
};
