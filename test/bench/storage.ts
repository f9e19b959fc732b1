import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * DynamoDB and S3 requests of each storage route, handler invoked in-process with the authorizer's context
 * (the `api_requests` meter is one of the DynamoDB requests), plus the presigned PUT itself.
 */
export const benchStorageRequests = async (options: {
  authorizerContext: unknown;
  context: Context;
  countDynamoDb: <T>(fn: () => Promise<T>) => Promise<number>;
  write: (line: string) => void;
}) => {
  const { s3 } = await import('../../functions/shared/aws/s3');
  const storage = (await import('../../functions/api/storage/index')).handler;
  let s3Requests = 0;
  s3().middlewareStack.add(
    (next) => async (args) => {
      s3Requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchS3Counter' },
  );
  const event = (
    method: string,
    resource: string,
    body: unknown,
    query: Record<string, string> | null = null,
  ) =>
    ({
      resource,
      path: `/v1${resource}`,
      httpMethod: method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      queryStringParameters: query,
      pathParameters: null,
      body: body === undefined ? null : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', authorizer: options.authorizerContext },
    }) as unknown as APIGatewayProxyEvent;
  const invoke = async (e: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const res = (await storage(e, options.context)) as APIGatewayProxyResult;
    if (res.statusCode !== 200)
      throw new Error(`${e.httpMethod} ${e.resource}: ${res.statusCode} ${res.body}`);
    return res;
  };
  const row = async (name: string, fn: () => Promise<unknown>) => {
    const s3Before = s3Requests;
    const ddb = await options.countDynamoDb(fn);
    options.write(
      `${name.padEnd(50)} ${ddb} DynamoDB, ${s3Requests - s3Before} S3 (a presign counts, sends nothing)\n`,
    );
  };

  const bytes = new Uint8Array(64 * 1024).fill(7);
  let answer = { uploadUrl: '', fullPath: '', headers: {} as Record<string, string> };
  await row('POST /v1/storage/upload-url (reserve + meter)', async () => {
    const res = await invoke(
      event('POST', '/storage/upload-url', {
        fileName: 'bench.bin',
        contentType: 'application/octet-stream',
        size: bytes.length,
      }),
    );
    answer = JSON.parse(res.body) as typeof answer;
  });
  const put = await fetch(answer.uploadUrl, { method: 'PUT', headers: answer.headers, body: bytes });
  if (put.status !== 200) throw new Error(`presigned PUT answered ${put.status}`);
  const reference = { fullPath: answer.fullPath };
  await row('POST /v1/storage/upload-complete (first)', () =>
    invoke(event('POST', '/storage/upload-complete', reference)),
  );
  await row('POST /v1/storage/upload-complete (repeat)', () =>
    invoke(event('POST', '/storage/upload-complete', reference)),
  );
  await row('GET /v1/storage/url', () =>
    invoke(event('GET', '/storage/url', undefined, { fullPath: answer.fullPath, expiresIn: '604800' })),
  );
};
