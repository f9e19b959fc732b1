import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';

// The unit project turns EMF output off; these tests read it, so it is on before any module is loaded.
vi.hoisted(() => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
});

// The delivery's reads and writes are DynamoDB calls and its attempt a request: stubbed here, so the test
// reads only what an attempt counts.
vi.mock('../../functions/shared/data/webhook-deliveries', () => ({
  getDelivery: vi.fn(async () => ({ status: 'pending', attempts: 0 })),
  finishDelivery: vi.fn(async () => undefined),
  recordRetry: vi.fn(async () => undefined),
}));
vi.mock('../../functions/shared/data/events', () => ({
  getEvent: vi.fn(async () => ({
    id: 'evt_1',
    type: 'message.sent',
    createdAt: '2026-11-29T00:00:00.000Z',
    data: {},
  })),
}));
vi.mock('../../functions/shared/data/webhook-endpoints', () => ({
  getEndpoint: vi.fn(async () => ({
    url: 'https://hooks.example.com/x',
    status: 'enabled',
    secret: 'whsec_x',
  })),
  recordEndpointFailure: vi.fn(async () => ({ status: 'enabled' })),
  recordEndpointSuccess: vi.fn(async () => undefined),
}));
vi.mock('../../functions/shared/domain/messages/webhooks', async (original) => ({
  ...(await original<typeof import('../../functions/shared/domain/messages/webhooks')>()),
  postWebhook: vi.fn(),
}));

import { getEndpoint } from '../../functions/shared/data/webhook-endpoints';
import { attemptDelivery } from '../../functions/shared/domain/events/delivery';
import { postWebhook, WebhookRejectedError } from '../../functions/shared/domain/messages/webhooks';

let stdout: MockInstance<typeof process.stdout.write>;
beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  stdout.mockRestore();
  vi.mocked(postWebhook).mockReset();
});

/** The `WebhookDeliveries` EMF lines written since the test began: their outcome and properties. */
const counted = () =>
  stdout.mock.calls
    .map(([chunk]) => String(chunk).trim())
    .filter((line) => line.startsWith('{"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.WebhookDeliveries === 1)
    .map(({ outcome, companyId, endpointId, eventId }) => ({ outcome, companyId, endpointId, eventId }));

const task = { companyId: 'co_1', endpointId: 'we_1', eventId: 'evt_1' };

describe('an event delivery attempt counts WebhookDeliveries by outcome', () => {
  it.each([
    [{ status: 204 }, 'delivered', 'delivered'],
    [{ status: 503 }, 'server_error', 'retry'],
    [{ status: 429 }, 'server_error', 'retry'],
    [{ status: 410 }, 'rejected', 'failed'],
  ])('an answer %o is %s', async (answer, outcome, result) => {
    vi.mocked(postWebhook).mockResolvedValue(answer);
    expect((await attemptDelivery(task)).outcome).toBe(result);
    const lines = counted();
    expect(lines[0]).toEqual({ outcome, ...task });
    // A delivery the answer ends as failed is counted once more, as `failed`.
    expect(lines.slice(1)).toEqual(result === 'failed' ? [{ outcome: 'failed', ...task }] : []);
  });

  it('a network error and a refused address are counted as such', async () => {
    vi.mocked(postWebhook).mockRejectedValueOnce(new Error('ECONNRESET'));
    await attemptDelivery(task);
    vi.mocked(postWebhook).mockRejectedValueOnce(new WebhookRejectedError('refused address'));
    await attemptDelivery(task);
    expect(counted().map((l) => l.outcome)).toEqual(['network_error', 'refused_address', 'failed']);
  });

  it('a delivery ended without an attempt (endpoint disabled) is counted failed only', async () => {
    vi.mocked(getEndpoint).mockResolvedValueOnce({
      url: 'https://hooks.example.com/x',
      status: 'disabled',
      secret: 'whsec_x',
    } as Awaited<ReturnType<typeof getEndpoint>>);
    expect((await attemptDelivery(task)).outcome).toBe('failed');
    expect(postWebhook).not.toHaveBeenCalled();
    expect(counted().map((l) => l.outcome)).toEqual(['failed']);
  });
});
