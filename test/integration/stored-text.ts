import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';

/**
 * Everything the platform stored, as texts to search for a value that must never be stored (a minted token,
 * a workflow secret): every item of the table, every object of the company, and the local stack's own output
 * (its logs).
 */
export const everythingStored = async (companyId: string): Promise<string[]> => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { s3 } = await import('../../functions/shared/aws/s3');
  const { readObjectText } = await import('../../functions/shared/aws/s3-objects');
  const { env } = await import('../../functions/shared/env');
  const texts: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) texts.push(JSON.stringify(item));
    start = page.LastEvaluatedKey;
  } while (start);
  const { bucketName } = env();
  const listed = await s3().send(
    new ListObjectsV2Command({ Bucket: bucketName, Prefix: `companies/${companyId}/` }),
  );
  for (const object of listed.Contents ?? [])
    texts.push((await readObjectText(bucketName, object.Key ?? '')) ?? '');
  texts.push(readFileSync(join(inject('stack').dataDir, 'stack-output.log'), 'utf8'));
  return texts;
};
