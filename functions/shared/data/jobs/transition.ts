import { tableName } from '../client';
import { updateParams } from '../update-expression';

/** What a job's move sets and removes (the job types' fields vary, so it is keyed by name). */
export interface JobChange {
  set: Record<string, unknown>;
  remove?: readonly string[];
}

/**
 * The conditional update of a job's state change, the same for every job type: the item must exist, be in
 * one of the `from` statuses and still be the attempt the writer observed (a retried job has moved on and
 * refuses the write), plus any extra condition of the move. The owner of the job entity sends it alone
 * (`UpdateItem`) or as the first item of a transaction.
 */
export interface JobTransition {
  key: { pk: string; sk: string };
  from: readonly string[];
  /** The attempt the writer observed. */
  attempt: number;
  change: JobChange;
  /** Extra condition on the job, for example a lease that must not be in the future. */
  condition?: { expression: string; values: Record<string, unknown> };
}

export const jobTransitionUpdate = ({ key, from, attempt, change, condition }: JobTransition) => {
  const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
  return {
    TableName: tableName(),
    Key: key,
    ...updateParams(change, {
      expression: [
        'attribute_exists(pk)',
        `#status IN (${Object.keys(fromValues).join(', ')})`,
        '#attempt = :observedAttempt',
        ...(condition ? [condition.expression] : []),
      ].join(' AND '),
      names: { '#status': 'status', '#attempt': 'attempt' },
      values: { ...fromValues, ':observedAttempt': attempt, ...(condition?.values ?? {}) },
    }),
  };
};
