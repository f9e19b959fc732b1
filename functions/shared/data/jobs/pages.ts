import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../client';
import { sortKeys } from '../keys';

export interface JobPageRequest {
  limit: number;
  /** The id of the last job of the previous page (or the last one examined, for a filtered page). */
  cursor?: string | undefined;
  /** Only jobs in this status. */
  status?: string | undefined;
  /** Inclusive bounds of the job id: the ids of the filter's first and last instant (`jobIdBounds`). */
  lowestId?: string | undefined;
  highestId?: string | undefined;
  /** The most jobs a filtered page examines (`MAX_JOB_FILTER_EXAMINED`). */
  maxExamined: number;
}

/**
 * A page of a company's jobs of one type, newest first: a Query of the type's partition over the job items
 * (`JOB#<jobId>`; job ids are ULIDs made at the job's `createdAt`, so their order is creation order and a
 * creation-time filter is a key range), read backwards from the job before the cursor. The cursor is the id
 * of the last job shown, and the partition is the caller's own, so a cursor can never reach another company's
 * jobs. One item more than the page is read, so `nextCursor` is null exactly on the last page. Unfiltered,
 * listing costs what one page costs, whatever page it is.
 *
 * A `status` filter reads on until the page is full, the range ends or `maxExamined` jobs were
 * examined: then the page may be short (or empty) and its cursor is the last job examined, so the next page
 * resumes exactly there. The cursor narrows the key range instead of starting the Query at it, so a cursor
 * and any filters combine (a cursor outside the range simply ends the list).
 */
export const listJobPage = async <R extends { jobId: string }>(
  lifecycle: {
    jobKey: (companyId: string, jobId: string) => { pk: string; sk: string };
    toJob: (item: Record<string, unknown>) => R;
  },
  companyId: string,
  request: JobPageRequest,
): Promise<{ jobs: R[]; nextCursor: string | null }> => {
  const { pk } = lifecycle.jobKey(companyId, '');
  const lower = sortKeys.job(request.lowestId ?? '');
  const highest = sortKeys.job(request.highestId ?? '\uffff');
  const cursorKey = request.cursor === undefined ? undefined : sortKeys.job(request.cursor);
  const upper = cursorKey !== undefined && cursorKey < highest ? cursorKey : highest;
  if (upper < lower) return { jobs: [], nextCursor: null };
  const want = request.limit + 1;
  const found: Record<string, unknown>[] = [];
  let examined = 0;
  let startKey: Record<string, unknown> | undefined;
  let lastExamined: string | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lower AND :upper',
        ...(request.status === undefined
          ? {}
          : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
        ExpressionAttributeValues: {
          ':pk': pk,
          ':lower': lower,
          ':upper': upper,
          ...(request.status === undefined ? {} : { ':status': request.status }),
        },
        ScanIndexForward: false,
        // The cursor's own job is in the inclusive range: one more is read in its place.
        Limit:
          request.status === undefined
            ? want + 1 - found.length
            : Math.min(request.maxExamined - examined, Math.max(want + 1 - found.length, 100)),
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    found.push(...(page.Items ?? []).filter((item) => item.sk !== cursorKey));
    examined += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
    if (startKey) lastExamined = String(startKey.sk);
  } while (startKey && found.length < want && examined < request.maxExamined);
  const jobs = found.slice(0, request.limit).map(lifecycle.toJob);
  const last = jobs.at(-1);
  if (found.length > request.limit && last !== undefined) return { jobs, nextCursor: last.jobId };
  // The range may hold more than was examined: resume after the last job examined.
  const resume = startKey && lastExamined ? lastExamined.slice(sortKeys.job('').length) : null;
  return { jobs, nextCursor: resume };
};
