import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { BUCKET_CORS_RULE } from '../shared/aws/bucket-cors';
import { TABLE_INDEXES, TABLE_SHAPE } from '../shared/data/table';

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const STREAM = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const;

const indexDefinition = (index: (typeof TABLE_INDEXES)[number]) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: index.projection },
});

/** Adds to a table created before them the indexes of `TABLE_INDEXES` it lacks, one update each. */
const addMissingIndexes = async (
  client: DynamoDBClient,
  tableName: string,
  existing: readonly { IndexName?: string }[],
): Promise<void> => {
  for (const index of TABLE_INDEXES) {
    if (existing.some((e) => e.IndexName === index.indexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
      }),
    );
  }
};

/**
 * Creates the single table (same shape as the CDK data stack, with its stream) if it does not exist yet, and
 * enables the stream of a table created before it had one and adds the indexes it lacks. Returns the stream's
 * ARN.
 */
export const ensureTable = async (endpoint: string, region: string, tableName: string): Promise<string> => {
  const client = new DynamoDBClient({ endpoint, region, credentials: LOCAL_CREDENTIALS });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    await addMissingIndexes(client, tableName, Table?.GlobalSecondaryIndexes ?? []);
    if (Table?.LatestStreamArn && Table.StreamSpecification?.StreamEnabled) return Table.LatestStreamArn;
    const { TableDescription } = await client.send(
      new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }),
    );
    client.destroy();
    return String(TableDescription?.LatestStreamArn);
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partitionKey, sortKey, timeToLiveAttribute } = TABLE_SHAPE;
  const { TableDescription } = await client.send(
    new CreateTableCommand({
      TableName: tableName,
      StreamSpecification: STREAM,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        partitionKey,
        sortKey,
        ...TABLE_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
      ].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_INDEXES.map(indexDefinition),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
    }),
  );
  client.destroy();
  return String(TableDescription?.LatestStreamArn);
};

/** Creates the platform bucket in s3rver if it does not exist yet, and sets its CORS rule (as on AWS). */
export const ensureBucket = async (
  endpoint: string,
  region: string,
  bucketName: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<void> => {
  const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucketName }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
  }
  await client.send(
    new PutBucketCorsCommand({
      Bucket: bucketName,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedMethods: [...BUCKET_CORS_RULE.allowedMethods],
            AllowedOrigins: BUCKET_CORS_RULE.allowedOrigins,
            AllowedHeaders: BUCKET_CORS_RULE.allowedHeaders,
            ExposeHeaders: BUCKET_CORS_RULE.exposedHeaders,
            MaxAgeSeconds: BUCKET_CORS_RULE.maxAgeSeconds,
          },
        ],
      },
    }),
  );
  client.destroy();
};
