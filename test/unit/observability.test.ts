import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';

// The unit project turns EMF output off; these tests read it, so it is on before any module is loaded.
vi.hoisted(() => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
});

// The api_requests meter is a DynamoDB write; it is stubbed here (no network in unit tests).
vi.mock('../../functions/shared/data/usage-meters', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/usage-meters')>()),
  addToMeter: vi.fn(async () => 1),
}));

import { addToMeter, MeterLimitReachedError } from '../../functions/shared/data/usage-meters';
import { toPublicJob } from '../../functions/shared/domain/jobs/public-views';
import { createApiHandler } from '../../functions/shared/http/middleware';
import {
  countBilledUnits,
  countJobTransition,
  countRequest,
  countWebhookDelivery,
  flushMetrics,
  metrics,
} from '../../functions/shared/observability/metrics';
import { createHandler } from '../../functions/shared/pipeline/handler';
import { TRANSCODE_ROUTES } from '../../functions/shared/routes/transcode-routes';
import { lambdaContext, someTranscodeHandlers, transcodeProxyEvent } from '../fixtures/api-events';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

let stdout: MockInstance<typeof process.stdout.write>;
beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  stdout.mockRestore();
});

/** The EMF lines written to stdout since the test began. */
const emfLines = (): EmfLine[] =>
  stdout.mock.calls
    .map(([chunk]) => String(chunk).trim())
    .filter((line) => line.startsWith('{"_aws"'))
    .map((line) => JSON.parse(line) as EmfLine);

/** The lines that carry this metric, as `{ dimensions, value, line }`. */
const linesOf = (metricName: string) =>
  emfLines()
    .filter((line) => line._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === metricName))
    .map((line) => ({
      namespace: line._aws.CloudWatchMetrics[0]?.Namespace,
      dimensions: line._aws.CloudWatchMetrics[0]?.Dimensions,
      value: line[metricName],
      line,
    }));

describe('business metrics', () => {
  it('writes a request once per flush, by status class, by route and status, and by problem code', () => {
    countRequest('POST /v1/transcodes', 429, 'quota_exceeded');
    expect(linesOf('Requests')).toHaveLength(0);
    flushMetrics();
    const [request, ...others] = linesOf('Requests');
    expect(others).toHaveLength(0);
    expect(request?.namespace).toBe('PublicApiV1');
    expect(request?.dimensions).toEqual([
      ['service', 'statusClass'],
      ['service', 'route', 'status'],
      ['service', 'code'],
    ]);
    expect(request?.line).toMatchObject({
      service: 'public-api-v1',
      statusClass: '4xx',
      route: 'POST /v1/transcodes',
      status: '429',
      code: 'quota_exceeded',
      Requests: 1,
    });
  });

  it('counts an answer that is not a problem without a code dimension', () => {
    countRequest('GET /v1/self', 200);
    flushMetrics();
    expect(linesOf('Requests')[0]?.dimensions).toEqual([
      ['service', 'statusClass'],
      ['service', 'route', 'status'],
    ]);
  });

  it('writes billed units at once on a line of their own, with the company as a property, not a dimension', () => {
    countBilledUnits('transcode_seconds', 42, { companyId: 'co_1', jobId: 'job_1' });
    expect(metrics.hasStoredMetrics()).toBe(false);
    const [billed] = linesOf('BilledUnits');
    expect(billed?.dimensions).toEqual([['service', 'meter']]);
    expect(billed?.line).toMatchObject({ meter: 'transcode_seconds', BilledUnits: 42, companyId: 'co_1' });
  });

  it('writes nothing for zero billed units', () => {
    countBilledUnits('api_requests', 0);
    expect(linesOf('BilledUnits')).toHaveLength(0);
  });

  it('counts a job transition, and a move to failed also by its error code', () => {
    countJobTransition('transcode', 'done');
    countJobTransition('transcode', 'failed', 'source_unreadable', { jobId: 'job_1' });
    const transitions = linesOf('JobTransitions');
    expect(transitions.map((t) => [t.dimensions, t.line.to, t.value])).toEqual([
      [[['service', 'jobType', 'to']], 'done', 1],
      [[['service', 'jobType', 'to']], 'failed', 1],
    ]);
    const [failure, ...others] = linesOf('JobFailures');
    expect(others).toHaveLength(0);
    expect(failure?.dimensions).toEqual([['service', 'jobType', 'code']]);
    expect(failure?.line).toMatchObject({ jobType: 'transcode', code: 'source_unreadable', jobId: 'job_1' });
  });

  it('bounds a failure code that is not a catalogue name to other', () => {
    countJobTransition('transcode', 'failed', 'Error: something at /var/task/index.mjs:1');
    expect(linesOf('JobFailures')[0]?.line.code).toBe('other');
  });

  it('counts webhook deliveries by outcome', () => {
    countWebhookDelivery('network_error', { messageId: 'm_1' });
    const [delivery] = linesOf('WebhookDeliveries');
    expect(delivery?.dimensions).toEqual([['service', 'outcome']]);
    expect(delivery?.line).toMatchObject({
      outcome: 'network_error',
      WebhookDeliveries: 1,
      messageId: 'm_1',
    });
  });

  it('flushes what a worker buffered once its work is done, even when it throws', async () => {
    const worker = createHandler(async (_event: { jobId: string }) => {
      countRequest('GET /v1/self', 200);
      throw new Error('step failed');
    });
    await expect(worker({ jobId: 'j' })).rejects.toThrow('step failed');
    expect(linesOf('Requests')).toHaveLength(1);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});

const context = lambdaContext;

const event = (overrides: Partial<APIGatewayProxyEvent> = {}) => transcodeProxyEvent('req-9', overrides);

const handler = createApiHandler(
  'transcodes',
  TRANSCODE_ROUTES,
  someTranscodeHandlers({
    createTranscode: async () => ({ body: { job: toPublicJob(transcodeJobRecord()) } }),
    getTranscode: async () => {
      throw new Error('boom');
    },
  }),
);

describe('request counting in the API chain', () => {
  it('counts a success by route and status, with the request and company as properties', async () => {
    const res = await handler(event(), context);
    expect(res.statusCode).toBe(202);
    const requests = linesOf('Requests');
    expect(requests).toHaveLength(1);
    expect(requests[0]?.dimensions).toHaveLength(2);
    expect(requests[0]?.line).toMatchObject({
      route: 'POST /v1/transcodes',
      status: '202',
      statusClass: '2xx',
      requestId: 'req-9',
      companyId: 'co_1',
    });
  });

  it('counts the error handler answers: a refused request with its problem code', async () => {
    const res = await handler(event({ body: '{"preset":' }), context);
    expect(res.statusCode).toBe(400);
    expect(linesOf('Requests').map((r) => r.line)).toMatchObject([
      { route: 'POST /v1/transcodes', status: '400', statusClass: '4xx', code: 'validation_failed' },
    ]);
  });

  it('counts an unexpected error as 500 internal on its route', async () => {
    const res = await handler(
      event({ resource: '/transcodes/{id}', httpMethod: 'GET', body: null, pathParameters: { id: 'j1' } }),
      context,
    );
    expect(res.statusCode).toBe(500);
    expect(linesOf('Requests').map((r) => r.line)).toMatchObject([
      { route: 'GET /v1/transcodes/{id}', status: '500', statusClass: '5xx', code: 'internal' },
    ]);
  });

  it('bills one api_requests unit per metered request, and none for a request refused by the quota', async () => {
    await handler(event(), context);
    expect(linesOf('BilledUnits').map((b) => b.line)).toMatchObject([
      { meter: 'api_requests', BilledUnits: 1, companyId: 'co_1', requestId: 'req-9' },
    ]);
    stdout.mockClear();
    vi.mocked(addToMeter).mockRejectedValueOnce(new MeterLimitReachedError('api_requests'));
    const res = await handler(event(), context);
    expect(res.statusCode).toBe(429);
    expect(linesOf('BilledUnits')).toHaveLength(0);
    expect(linesOf('Requests').map((r) => r.line)).toMatchObject([{ status: '429', code: 'quota_exceeded' }]);
  });
});
