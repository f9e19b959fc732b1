import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { TABLE_SHAPE } from './table';
import { type TranscodeJobRecord, toTranscodeJob, UNFINISHED_INDEX_PARTITION } from './transcode-jobs';

/**
 * Unfinished jobs of every company, from the sparse index partition the job module maintains (operator
 * sweeps and the local stack's start-up only; never a request path).
 */
export const listUnfinishedTranscodeJobs = async (): Promise<TranscodeJobRecord[]> => {
  const jobs: TranscodeJobRecord[] = [];
  const pages = paginateQuery(
    { client: ddb },
    {
      TableName: tableName(),
      IndexName: TABLE_SHAPE.gsi1.indexName,
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': UNFINISHED_INDEX_PARTITION },
    },
  );
  for await (const page of pages) jobs.push(...(page.Items ?? []).map(toTranscodeJob));
  return jobs;
};
