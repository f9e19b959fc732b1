import { afterEach, describe, expect, it, vi } from 'vitest';

// DynamoDB Local never throttles: the meter's client is stubbed to answer as a throttled DynamoDB does.
vi.mock('../../functions/shared/data/client', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/client')>()),
  ddb: { send: vi.fn() },
}));

import { ddb } from '../../functions/shared/data/client';
import { isThrottled, MeterThrottledError } from '../../functions/shared/data/throttling';
import { addApiRequests, shardAllotment } from '../../functions/shared/data/usage-shards';
import { toPublicJob } from '../../functions/shared/domain/jobs/public-views';
import { createApiHandler } from '../../functions/shared/http/middleware';
import { TRANSCODE_ROUTES } from '../../functions/shared/routes/transcode-routes';
import { API_REQUEST_SHARDS } from '../../functions/shared/types/meters';
import { lambdaContext, someTranscodeHandlers, transcodeProxyEvent } from '../fixtures/api-events';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

const send = vi.mocked(ddb.send) as unknown as ReturnType<typeof vi.fn>;
const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

afterEach(() => send.mockReset());

describe('a throttled usage meter write', () => {
  it.each([
    named('ProvisionedThroughputExceededException'),
    named('ThrottlingException'),
    named('RequestLimitExceeded'),
    named('TransactionCanceledException', {
      CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }],
    }),
  ])('is recognised: %s', (error) => {
    expect(isThrottled(error)).toBe(true);
  });

  it('is told apart from a refused condition or a cancelled transaction that was not throttled', () => {
    expect(isThrottled(named('ConditionalCheckFailedException'))).toBe(false);
    expect(
      isThrottled(
        named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }),
      ),
    ).toBe(false);
    expect(isThrottled('ThrottlingException')).toBe(false);
  });

  it('answers a metered request 503 service_unavailable with Retry-After, and the route never runs', async () => {
    send.mockRejectedValue(named('ProvisionedThroughputExceededException'));
    const getTranscode = vi.fn(async () => ({ body: { job: toPublicJob(transcodeJobRecord()) } }));
    const handler = createApiHandler('transcodes', TRANSCODE_ROUTES, someTranscodeHandlers({ getTranscode }));
    const res = await handler(
      transcodeProxyEvent('req-throttled', {
        resource: '/transcodes/{id}',
        httpMethod: 'GET',
        body: null,
        pathParameters: { id: 'j1' },
      }),
      lambdaContext,
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(res.body)).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(getTranscode).not.toHaveBeenCalled();
  });

  it('throws MeterThrottledError from a conditional shard write, not a refusal', async () => {
    send.mockRejectedValue(named('ThrottlingException'));
    await expect(addApiRequests('co_t', 1, '2030-01-15', Date.now(), 100)).rejects.toBeInstanceOf(
      MeterThrottledError,
    );
  });
});

describe('the sharded allowance', () => {
  it.each([0, 1, 9, 10, 11, 500, 1_000_003])(
    'splits an allowance of %i into allotments that sum to it',
    (limit) => {
      const allotments = Array.from({ length: API_REQUEST_SHARDS }, (_, s) => shardAllotment(limit, s));
      expect(allotments.reduce((a, b) => a + b, 0)).toBe(limit);
      expect(Math.max(...allotments) - Math.min(...allotments)).toBeLessThanOrEqual(1);
    },
  );

  it('tries every shard once before refusing, then refuses without a write while the month stays full', async () => {
    send.mockRejectedValue(named('ConditionalCheckFailedException'));
    const at = Date.now();
    await expect(addApiRequests('co_full', 1, '2030-01-15', at, 100)).resolves.toBe(false);
    const keys = send.mock.calls.map(
      ([command]) => (command as { input: { Key: { sk: string } } }).input.Key.sk,
    );
    expect(new Set(keys).size).toBe(API_REQUEST_SHARDS);
    expect(keys).toHaveLength(API_REQUEST_SHARDS);
    send.mockClear();
    await expect(addApiRequests('co_full', 1, '2030-01-15', at, 100)).resolves.toBe(false);
    expect(send).not.toHaveBeenCalled();
    // A larger allowance (a plan upgrade) is a fresh month for the shards.
    send.mockResolvedValueOnce({});
    await expect(addApiRequests('co_full', 1, '2030-01-15', at, 200)).resolves.toBe(true);
  });
});
