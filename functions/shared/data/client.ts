import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { env } from '../env';
import { tracer } from '../observability/tracer';

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

/** How the document clients marshal values (the one `ddb`, and the one-action writes of `transactions.ts`). */
export const DOCUMENT_TRANSLATION = { marshallOptions: { removeUndefinedValues: true } };

export const ddb = DynamoDBDocumentClient.from(dynamodbClient, DOCUMENT_TRANSLATION);

export const tableName = (): string => env().tableName;

/**
 * A tenant's JSON value in the form the marshaller stores as a map whatever its member names. The SDK's
 * marshaller tells a plain object from a class instance, a Set or a Number by `value.constructor.name`, so a
 * tenant object with a member named `constructor` (or one shaped `{constructor: {name: "Set"}}`) would be
 * refused or stored as something else; a `Map` is always a map. Every data module that stores tenant JSON
 * as a DynamoDB map passes it through this.
 */
export const asTenantMap = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(asTenantMap);
  if (value === null || typeof value !== 'object') return value;
  return new Map(Object.entries(value).map(([key, member]) => [key, asTenantMap(member)]));
};

export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Every item a query matches, page after page (`paginateQuery`): for small partitions and operator sweeps. */
export const queryAll = async (input: QueryCommandInput): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client: ddb }, input)) items.push(...(page.Items ?? []));
  return items;
};
