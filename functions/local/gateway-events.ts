import type { IncomingMessage } from 'node:http';
import type { Context } from 'aws-lambda';

/**
 * What the gateway emulator reads off a request and hands a handler, as API Gateway builds it: the body
 * within the payload limit, the single- and multi-value maps of header and query names, and a Lambda
 * context with the integration's deadline.
 */
export const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * The single- and multi-value maps of request names (headers, query parameters), as API Gateway builds them.
 * Names are the client's: the maps have no prototype, so `__proto__`, `constructor` or `toString` are keys
 * like any other (an ordinary object would answer them from `Object.prototype`), as they are in the JSON
 * event a Lambda receives on AWS.
 */
const nameMaps = (pairs: Iterable<[string, string]>) => {
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairs) {
    single[name] = value;
    multi[name] = [...(Object.hasOwn(multi, name) ? (multi[name] ?? []) : []), value];
  }
  return { single, multi };
};

export const headerMaps = (req: IncomingMessage) => {
  const pairs: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    pairs.push([req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '']);
  const { single, multi } = nameMaps(pairs);
  return { headers: single, multiValueHeaders: multi };
};

export const queryMaps = (url: URL) => {
  if ([...url.searchParams.keys()].length === 0) return { single: null, multi: null };
  return nameMaps(url.searchParams);
};

export const lambdaContext = (
  region: string,
  accountId: string,
  functionName: string,
  requestId: string,
  deadline: number,
): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
