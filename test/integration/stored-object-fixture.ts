import { PutCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Writes a stored-object record straight to DynamoDB Local (what upload-complete leaves behind), so tests of
 * routes that accept storage references have an object of their own to point at.
 */
export const storeObjectRecord = async (
  companyId: string,
  fullPath: string,
  contentType = 'application/pdf',
) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { storedObjectKey } = await import('../../functions/shared/data/stored-objects');
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...storedObjectKey(companyId, fullPath),
        entity: 'stored_object',
        status: 'stored',
        bucket: process.env.BUCKET_NAME ?? '',
        fullPath,
        size: 10,
        contentType,
        etag: 'e',
        createdAt: new Date().toISOString(),
      },
    }),
  );
};
