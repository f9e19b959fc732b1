import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';

// The api_requests meter is a DynamoDB write; unit tests have no network, so it is stubbed here and
// exercised for real by the integration tests.
vi.mock('../../functions/shared/data/usage-meters', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/usage-meters')>()),
  addToMeter: vi.fn(async () => 1),
}));

import { toPublicJob } from '../../functions/shared/domain/jobs/public-views';
import { AppError } from '../../functions/shared/errors';
import { createApiHandler } from '../../functions/shared/http/middleware';
import { TRANSCODE_ROUTES } from '../../functions/shared/routes/transcode-routes';
import { lambdaContext, someTranscodeHandlers, transcodeProxyEvent } from '../fixtures/api-events';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

const context = lambdaContext;

const event = (overrides: Partial<APIGatewayProxyEvent> = {}) => transcodeProxyEvent('req-123', overrides);

// The handler answers a job of the route's shape that carries what it was given: the parsed body (source
// path and preset) and the caller (in the job id).
const handler = createApiHandler(
  'transcodes',
  TRANSCODE_ROUTES,
  someTranscodeHandlers({
    createTranscode: async ({ body, auth }) => {
      const source = { bucket: 'unit-bucket', fullPath: body.fullPath, size: 1, etag: 'e' };
      return {
        body: {
          job: toPublicJob(
            transcodeJobRecord({ jobId: `tc_for_${auth.companyId}`, preset: body.preset, source }),
          ),
        },
      };
    },
    getTranscode: async () => {
      throw new Error('connection string postgres://secret@db');
    },
  }),
);

const parse = (body: string | undefined) => JSON.parse(body ?? '{}') as Record<string, unknown>;

describe('route handler chain', () => {
  it('passes parsed input and the caller to the handler and uses the route success status', async () => {
    const res = await handler(event(), context);
    expect(res.statusCode).toBe(202);
    expect(parse(res.body)).toMatchObject({
      job: { id: 'tc_for_co_1', preset: 'wav', source: { fullPath: 'companies/co_1/a.wav' } },
    });
    expect(res.headers?.['x-request-id']).toBe('req-123');
  });

  it('lists every invalid field with a JSON pointer', async () => {
    const res = await handler(event({ body: JSON.stringify({ preset: 'avi', bucket: 7 }) }), context);
    expect(res.statusCode).toBe(400);
    expect(res.headers?.['content-type']).toBe('application/problem+json');
    const problem = parse(res.body);
    expect(problem).toMatchObject({ code: 'validation_failed', status: 400, requestId: 'req-123' });
    expect((problem.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/body/bucket',
      '/body/fullPath',
      '/body/preset',
    ]);
  });

  it('refuses a body that is not JSON with a pointer to the body', async () => {
    const res = await handler(event({ body: '{"fullPath":' }), context);
    expect(res.statusCode).toBe(400);
    expect(parse(res.body).errors).toEqual([{ pointer: '/body', message: 'The body is not valid JSON.' }]);
  });

  it('refuses a non-JSON content type with 415', async () => {
    const res = await handler(event({ headers: { 'content-type': 'text/plain' } }), context);
    expect(res.statusCode).toBe(415);
    expect(parse(res.body).code).toBe('unsupported_media_type');
  });

  it('refuses a body over the published maximum with 413', async () => {
    const res = await handler(
      event({ body: JSON.stringify({ fullPath: 'x'.repeat(1_100_000), preset: 'wav' }) }),
      context,
    );
    expect(res.statusCode).toBe(413);
    expect(parse(res.body).code).toBe('payload_too_large');
  });

  it('refuses a caller without the route scope with 403 insufficient_scope', async () => {
    const res = await handler(
      event({
        requestContext: {
          requestId: 'r',
          authorizer: { companyId: 'co_1', authMethod: 'api_key', scopes: 'transcodes:read' },
        } as never,
      }),
      context,
    );
    expect(res.statusCode).toBe(403);
    expect(parse(res.body)).toMatchObject({ code: 'insufficient_scope', requiredScope: 'transcodes:write' });
  });

  it('answers an unexpected error with a generic 500 that carries no internals', async () => {
    const res = await handler(
      event({ resource: '/transcodes/{id}', httpMethod: 'GET', body: null, pathParameters: { id: 'j1' } }),
      context,
    );
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('postgres');
    expect(parse(res.body)).toMatchObject({ code: 'internal', requestId: 'req-123' });
  });

  it('answers a declared route without a handler (a planned one) with 501 not_implemented', async () => {
    const res = await handler(
      event({ resource: '/transcodes/{id}/cancel', pathParameters: { id: 'j1' }, body: null }),
      context,
    );
    expect(res.statusCode).toBe(501);
    expect(parse(res.body).code).toBe('not_implemented');
  });

  it('maps domain errors once, with Retry-After when the error carries it', async () => {
    const throwing = createApiHandler(
      'transcodes',
      TRANSCODE_ROUTES,
      someTranscodeHandlers({
        createTranscode: async () => {
          throw new AppError('transcode_queue_full', 'Too many unfinished jobs.', { retryAfterSeconds: 30 });
        },
      }),
    );
    const res = await throwing(event(), context);
    expect(res.statusCode).toBe(429);
    expect(res.headers?.['retry-after']).toBe('30');
  });

  it('refuses a route of another group as not found', async () => {
    const res = await handler(event({ resource: '/self', httpMethod: 'GET', body: null }), context);
    expect(res.statusCode).toBe(404);
  });
});
