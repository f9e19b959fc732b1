import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../client';
import { sortKeys } from '../keys';

/**
 * A page of a company's jobs of one type, newest first: one Query of the type's partition over the job items
 * (`JOB#<jobId>`; job ids are ULIDs, so their order is creation order), read backwards from the job before the
 * cursor. The cursor is the id of the last job shown, and the partition is the caller's own, so a cursor can
 * never reach another company's jobs. One item more than the page is read, so `nextCursor` is null exactly on
 * the last page. Listing costs what one page costs, whatever page it is.
 */
export const listJobPage = async <R extends { jobId: string }>(
  lifecycle: {
    jobKey: (companyId: string, jobId: string) => { pk: string; sk: string };
    toJob: (item: Record<string, unknown>) => R;
  },
  companyId: string,
  request: { limit: number; cursor?: string | undefined },
): Promise<{ jobs: R[]; nextCursor: string | null }> => {
  const { pk } = lifecycle.jobKey(companyId, '');
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :job)',
      ExpressionAttributeValues: { ':pk': pk, ':job': sortKeys.job('') },
      ScanIndexForward: false,
      Limit: request.limit + 1,
      ...(request.cursor === undefined
        ? {}
        : { ExclusiveStartKey: lifecycle.jobKey(companyId, request.cursor) }),
    }),
  );
  const jobs = Items.slice(0, request.limit).map(lifecycle.toJob);
  const last = jobs.at(-1);
  return { jobs, nextCursor: Items.length > request.limit && last !== undefined ? last.jobId : null };
};
