import { getEvent } from '../../data/events';
import { finishDelivery, getDelivery, recordRetry } from '../../data/webhook-deliveries';
import { getEndpoint, recordEndpointFailure, recordEndpointSuccess } from '../../data/webhook-endpoints';
import { env } from '../../env';
import type { WebhookDeliveryOutcome } from '../../observability/metric-names';
import { countWebhookDelivery } from '../../observability/metrics';
import { leaseFrom } from '../jobs/worker-shell';
import { postWebhook, signingSecrets, signWebhook, WebhookRejectedError } from '../messages/webhooks';
import { toPublicEvent } from './events';

/**
 * One attempt of a delivery, for a message of the `webhook-delivery` FIFO queue (`delivery-queue.ts`; the
 * worker keeps a delivery to retry at its group's head, `workers/webhook-delivery`).
 *
 * Retries: on 5xx, 408, 429 and network errors, after min(cap, base × 2^(n-1)) seconds with equal jitter
 * (half fixed, half random), for the retry window (27 h by default) from the first attempt; other answers
 * end the delivery as failed at once. Each attempt signs anew, with the event id as `webhook-id`. An
 * endpoint tried and failing for the disable period (3 days) since its last success is disabled, with the
 * reason; a pause longer than the retry cap plus one attempt (no events, a stopped platform) counts as that
 * much, never more (`recordEndpointFailure`). Each attempt is counted by outcome (`WebhookDeliveries`, as a
 * message's channel delivery is: one alarm watches both), and so is a delivery that ends `failed`.
 */
const DELIVERY_TIMEOUT_MS = 10_000;

/** A duration as the disable reason states it: seconds or minutes under an hour, then hours. */
export const spokenDuration = (ms: number): string => {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${Number.isInteger(hours) || hours >= 10 ? Math.floor(hours) : hours.toFixed(1)} h`;
};

/** Seconds to wait after the `attempt`-th failed attempt: exponential, capped, with equal jitter. */
export const retryDelaySeconds = (attempt: number, random = Math.random()): number => {
  const { retryBaseSeconds, retryCapSeconds } = env().webhookDelivery;
  const full = Math.min(retryCapSeconds, retryBaseSeconds * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(full / 2 + (random * full) / 2));
};

/**
 * `skipped`: the delivery had ended (or is gone): a repeated or outdated message. `retry`: try again after
 * `retryInSeconds`, the message kept at its group's head; `wait`: not due yet (a message back before its
 * retry's time), likewise.
 */
export type AttemptResult =
  | { outcome: 'delivered' | 'failed' | 'skipped' }
  | { outcome: 'retry' | 'wait'; retryInSeconds: number };

/** A message arriving less than this before its retry is due is handled as due. */
const DUE_SLACK_MS = 1000;

type Answer = ({ ok: true; status: number } | { ok: false; retryable: boolean; status: number | string }) & {
  durationMs?: number;
};

/** The outcome an attempt's answer is counted under (`WebhookDeliveries`). */
const attemptOutcomeOf = (answer: Answer): WebhookDeliveryOutcome => {
  if (answer.ok) return 'delivered';
  if (answer.status === 'refused_address' || answer.status === 'network_error') return answer.status;
  return answer.retryable ? 'server_error' : 'rejected';
};

/** Signed with each secret of `secrets`: `webhook-signature` carries one signature each, space-separated. */
const send = async (
  url: string,
  secrets: readonly string[],
  eventId: string,
  body: string,
  now: Date,
): Promise<Answer> => {
  const timestamp = Math.floor(now.getTime() / 1000);
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const { status } = await postWebhook(
      url,
      {
        'content-type': 'application/json',
        'user-agent': 'public-api-v1-webhooks/1',
        'webhook-id': eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': secrets.map((s) => signWebhook(s, eventId, timestamp, body)).join(' '),
      },
      body,
      { ...env().outbound, timeoutMs: DELIVERY_TIMEOUT_MS },
    );
    if (status >= 200 && status < 300) return { ok: true, status, durationMs: durationMs() };
    const retryable = status >= 500 || status === 408 || status === 429;
    return { ok: false, retryable, status, durationMs: durationMs() };
  } catch (error) {
    if (error instanceof WebhookRejectedError)
      return { ok: false, retryable: false, status: 'refused_address' };
    return { ok: false, retryable: true, status: 'network_error', durationMs: durationMs() };
  }
};

/** One attempt of the delivery of `eventId` to the endpoint, if it is pending and due. */
export const attemptDelivery = async (
  task: { companyId: string; endpointId: string; eventId: string },
  now = new Date(),
): Promise<AttemptResult> => {
  const { companyId, endpointId, eventId } = task;
  const countOutcome = (outcome: WebhookDeliveryOutcome) =>
    countWebhookDelivery(outcome, { companyId, endpointId, eventId });
  const delivery = await getDelivery(companyId, eventId, endpointId);
  if (delivery?.status !== 'pending') return { outcome: 'skipped' };
  const dueInMs = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now.getTime() : 0;
  if (dueInMs > DUE_SLACK_MS) return { outcome: 'wait', retryInSeconds: Math.ceil(dueInMs / 1000) };
  const attempts = delivery.attempts + 1;
  const end = async (
    status: 'delivered' | 'failed',
    lastStatus: number | string,
    count = attempts,
    durationMs?: number,
  ) => {
    const timed = durationMs === undefined ? {} : { durationMs };
    await finishDelivery({
      companyId,
      endpointId,
      eventId,
      status,
      attempts: count,
      lastStatus,
      now,
      ...timed,
    });
    if (status === 'failed') countOutcome('failed');
    return { outcome: status } as const;
  };
  const [event, endpoint] = await Promise.all([
    getEvent(companyId, eventId, now),
    getEndpoint(companyId, endpointId),
  ]);
  if (!event) return end('failed', 'event_expired', attempts - 1);
  if (!endpoint) return end('failed', 'endpoint_deleted', attempts - 1);
  if (endpoint.status !== 'enabled') return end('failed', 'endpoint_disabled', attempts - 1);

  const answer = await send(
    endpoint.url,
    signingSecrets(endpoint, now),
    eventId,
    JSON.stringify(toPublicEvent(event)),
    now,
  );
  countOutcome(attemptOutcomeOf(answer));
  if (answer.ok) {
    // A healthy endpoint has nothing to clear: no write that is known to fail (it would still bill a unit).
    if (endpoint.failingSince !== undefined) await recordEndpointSuccess(companyId, endpointId);
    return end('delivered', answer.status, attempts, answer.durationMs);
  }
  const settings = env().webhookDelivery;
  const after = await recordEndpointFailure({
    companyId,
    endpointId,
    now,
    longestGapMs: settings.retryCapSeconds * 1000 + DELIVERY_TIMEOUT_MS,
    disableAfterMs: settings.disableAfterSeconds * 1000,
    reason: (failingMs) =>
      `Deliveries failed for ${spokenDuration(failingMs)}; last answer: ${answer.status}.`,
  });
  const firstAttemptAt = Date.parse(delivery.firstAttemptAt ?? now.toISOString());
  const windowEnded = now.getTime() - firstAttemptAt >= settings.retryWindowSeconds * 1000;
  if (!answer.retryable || windowEnded || after?.status !== 'enabled')
    return end('failed', answer.status, attempts, answer.durationMs);
  const retryInSeconds = retryDelaySeconds(attempts);
  const next = leaseFrom(now, retryInSeconds);
  await recordRetry({
    companyId,
    endpointId,
    eventId,
    attempts,
    lastStatus: answer.status,
    durationMs: answer.durationMs ?? 0,
    now,
    nextAttemptAt: next,
  });
  return { outcome: 'retry', retryInSeconds };
};
