import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { env } from '../env';
import { tracer } from '../logger';

const { region, dynamodbEndpoint } = env();

/** The one DynamoDB client of a process, built at module scope; each call is an X-Ray subsegment. */
export const dynamodbClient = tracer.captureAWSv3Client(
  new DynamoDBClient({
    region,
    ...(dynamodbEndpoint
      ? { endpoint: dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  }),
);

export const ddb = DynamoDBDocumentClient.from(dynamodbClient, {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = (): string => env().tableName;

export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Every item a query matches, page after page (`paginateQuery`): for small partitions and operator sweeps. */
export const queryAll = async (input: QueryCommandInput): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client: ddb }, input)) items.push(...(page.Items ?? []));
  return items;
};
