import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * Dynadata and messaging figures for `npm run bench`: DynamoDB requests per call of get, create, update,
 * list and send_message (handlers in-process, type definitions warm), and list page 1 vs page 500 of a
 * type holding `BENCH_DYNADATA_ITEMS` items (default 50 000), in requests and in time.
 */
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export const benchDynadata = async (options: {
  companyId: string;
  authorizerContext: Record<string, unknown> | undefined;
  context: Context;
  counted: (fn: () => Promise<unknown>) => Promise<number>;
  write: (line: string) => void;
}) => {
  const { companyId, authorizerContext, context, counted, write } = options;
  const dynadata = (await import('../../functions/api/dynadata/index')).handler as Handler;
  const contacts = (await import('../../functions/api/contacts/index')).handler as Handler;
  const { putType } = await import('../../functions/shared/domain/dynadata/type-admin');
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { itemPartition } = await import('../../functions/shared/data/dynadata-items');
  const { ulid } = await import('../../functions/shared/ids');

  const event = (
    method: string,
    resource: string,
    pathParameters: Record<string, string>,
    body?: unknown,
  ): APIGatewayProxyEvent =>
    ({
      resource,
      path: resource,
      httpMethod: method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      queryStringParameters: null,
      pathParameters,
      body: body === undefined ? null : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: { requestId: `bench-${ulid()}`, authorizer: authorizerContext },
    }) as unknown as APIGatewayProxyEvent;
  const invoke = async (h: Handler, e: APIGatewayProxyEvent) => {
    const res = await h(e, context);
    if (res.statusCode >= 300)
      throw new Error(`${e.httpMethod} ${e.resource}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as Record<string, unknown>;
  };

  const typeName = `bench_${ulid().slice(-6)}`;
  await putType(
    companyId,
    {
      name: typeName,
      description: 'bench',
      schema: { type: 'object', properties: { n: { type: 'integer' }, label: { type: 'string' } } },
      functions: [],
    },
    new Date(),
  );
  const contact = await invoke(
    dynadata,
    event('POST', '/dynadata/type/{type}/create', { type: 'contacts' }, { name: 'Bench' }),
  );
  const contactId = String(contact._id);
  // Warm the type definition cache, as a running function has it.
  const first = await invoke(
    dynadata,
    event('POST', '/dynadata/type/{type}/create', { type: typeName }, { n: 0, label: 'warm' }),
  );

  write('\n== Dynadata and messaging: DynamoDB requests per call (handler in-process, incl. the meter)\n');
  const rows: [string, () => Promise<unknown>][] = [
    [
      'GET item (built-in contacts)',
      () =>
        invoke(
          dynadata,
          event('GET', '/dynadata/type/{type}/item/{_id}', { type: 'contacts', _id: contactId }),
        ),
    ],
    [
      'GET item (custom type)',
      () =>
        invoke(
          dynadata,
          event('GET', '/dynadata/type/{type}/item/{_id}', { type: typeName, _id: String(first._id) }),
        ),
    ],
    [
      'create (custom type)',
      () =>
        invoke(
          dynadata,
          event('POST', '/dynadata/type/{type}/create', { type: typeName }, { n: 1, label: 'x' }),
        ),
    ],
    [
      'update (custom type, merge + validate)',
      () =>
        invoke(
          dynadata,
          event('POST', '/dynadata/type/{type}/update', { type: typeName }, { _id: String(first._id), n: 2 }),
        ),
    ],
    [
      'list, 25 items, no filter',
      () => invoke(dynadata, event('POST', '/dynadata/type/{type}/list', { type: typeName }, {})),
    ],
    [
      'executeFunction count (no filter)',
      () =>
        invoke(
          dynadata,
          event(
            'POST',
            '/dynadata/type/{type}/executeFunction/{functionName}',
            { type: typeName, functionName: 'count' },
            {},
          ),
        ),
    ],
    [
      'send_message (text)',
      () =>
        invoke(
          contacts,
          event(
            'POST',
            '/contacts/{contactId}/send_message',
            { contactId },
            { type: 'text', body: { text: 'hi' } },
          ),
        ),
    ],
  ];
  for (const [name, fn] of rows) write(`${name.padEnd(50)} ${await counted(fn)}\n`);

  const total = Number(process.env.BENCH_DYNADATA_ITEMS ?? 50_000);
  const pageSize = 100;
  const pages = Math.floor(total / pageSize);
  write(`\n== Dynadata list: page 1 vs page ${pages} of ${total} items (limit ${pageSize})\n`);
  const big = `bench_big_${ulid().slice(-6)}`;
  await putType(
    companyId,
    {
      name: big,
      description: 'bench',
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      functions: [],
    },
    new Date(),
  );
  const started = Date.now();
  const now = new Date().toISOString();
  const batches: Promise<unknown>[] = [];
  for (let i = 0; i < total; i += 25) {
    const items = Array.from({ length: Math.min(25, total - i) }, (_, j) => {
      const id = ulid(Date.now() - total + i + j);
      return {
        PutRequest: {
          Item: {
            pk: itemPartition(companyId, big),
            sk: id,
            entity: 'dd_item',
            _id: id,
            _version: 1,
            createdAt: now,
            updatedAt: now,
            _size: 10,
            data: { n: i + j },
          },
        },
      };
    });
    batches.push(ddb.send(new BatchWriteCommand({ RequestItems: { [tableName()]: items } })));
    if (batches.length >= 16) await Promise.all(batches.splice(0));
    if (i % 10_000 === 0 && i > 0) write(`  ${i} items written\n`);
  }
  await Promise.all(batches);
  write(`seeded ${total} items in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const list = (cursor?: string) =>
    invoke(
      dynadata,
      event(
        'POST',
        '/dynadata/type/{type}/list',
        { type: big },
        { limit: pageSize, ...(cursor ? { cursor } : {}) },
      ),
    );
  let cursor: string | undefined;
  let secondCursor: string | undefined;
  for (let p = 1; p < pages; p++) {
    cursor = String((await list(cursor)).nextCursor);
    secondCursor ??= cursor;
  }
  const lastCursor = cursor;
  // Interleaved, so a change of machine load affects both pages alike.
  const page1Times: number[] = [];
  const page2Times: number[] = [];
  const lastTimes: number[] = [];
  for (let i = 0; i < 40; i++) {
    for (const [times, fn] of [
      [page1Times, () => list()],
      [page2Times, () => list(secondCursor)],
      [lastTimes, () => list(lastCursor)],
    ] as const) {
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
  }
  const median = (times: number[]) => [...times].sort((x, y) => x - y)[Math.floor(times.length / 2)] ?? 0;
  const page1Requests = await counted(() => list());
  const lastRequests = await counted(() => list(lastCursor));
  const lastPage = await list(lastCursor);
  const page1Ms = median(page1Times);
  const lastMs = median(lastTimes);
  write(`page 1:   ${page1Requests} DynamoDB requests, median ${page1Ms.toFixed(2)} ms\n`);
  write(
    `page 2:   median ${median(page2Times).toFixed(2)} ms (any page after the first starts from a key)\n`,
  );
  write(
    `page ${pages}: ${lastRequests} DynamoDB requests, median ${lastMs.toFixed(2)} ms, ${(lastPage.items as unknown[]).length} items, nextCursor ${lastPage.nextCursor === null ? 'null' : 'set'}\n`,
  );
  write(
    `ratio page ${pages} / page 1: requests ${(lastRequests / page1Requests).toFixed(2)}, time ${(lastMs / page1Ms).toFixed(2)}\n`,
  );
};
