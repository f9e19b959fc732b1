import { EVENT_ENTITY, type EventRecord, putEventOnce, toEventRecord } from '../../data/events';
import { enqueueDelivery } from '../../data/webhook-deliveries';
import { getEndpoint, listEndpoints, type WebhookEndpointRecord } from '../../data/webhook-endpoints';
import { logger } from '../../logger';
import { cachedOrLoad, createTtlCache } from '../../ttl-cache';
import { USAGE_THRESHOLDS } from '../../types/events';
import type { MeterName } from '../../types/meters';
import type { PlanLimits } from '../../types/plans';
import { companyLimits } from '../company-limits';
import { subscribes } from './endpoints';
import { startLane } from './lanes';

/**
 * The dispatcher: what the table's stream feeds (on AWS a Lambda event source; locally a poller of
 * DynamoDB Local's stream calls the same function).
 *
 * - A new event item: one delivery per enabled endpoint subscribed to its type (the endpoint tested, for a
 *   `ping`) that existed when the event was raised (an endpoint receives only events raised after its
 *   creation, however late the event is handled), each created once (a record handled twice creates no second delivery) and queued in its lane,
 *   then the lane's delivery execution is started (by a name derived from lane and event: a repeated start
 *   is the same execution).
 * - A changed usage month: a meter that passed 80 % or 100 % of its monthly allowance raises
 *   `usage.threshold_reached`, once per meter, threshold and month (a marker written with the event).
 */
export interface StreamChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
}

/** An endpoint receives the events raised from its creation on (ISO instants compare as text). */
const existedAt = (
  endpoint: Pick<WebhookEndpointRecord, 'createdAt'>,
  event: Pick<EventRecord, 'createdAt'>,
) => endpoint.createdAt <= event.createdAt;

export const dispatchEvent = async (event: EventRecord): Promise<number> => {
  const endpoints = event.endpointId
    ? [await getEndpoint(event.companyId, event.endpointId)].filter((e) => e !== undefined)
    : (await listEndpoints(event.companyId)).filter((e) => subscribes(e, event.type));
  const enabled = endpoints.filter((e) => e.status === 'enabled' && existedAt(e, event));
  for (const endpoint of enabled) {
    const lane = { companyId: event.companyId, endpointId: endpoint.id, resourceId: event.resourceId };
    await enqueueDelivery({ lane, eventId: event.id, eventCreatedAt: new Date(event.createdAt) });
    await startLane(lane, event.id);
  }
  return enabled.length;
};

/** The monthly allowance of each meter that has one. */
const ALLOWANCES: Partial<Record<MeterName, keyof PlanLimits>> = {
  api_requests: 'apiRequestsPerMonth',
  transcode_seconds: 'transcodeSecondsPerMonth',
  transcription_seconds: 'transcriptionSecondsPerMonth',
  speech_characters: 'speechCharactersPerMonth',
  workflow_runs: 'workflowRunsPerMonth',
};

const limitsCache = createTtlCache<PlanLimits>(60_000, 1000);

const USAGE_MONTH = /^CO#(.+)#USAGE$/;

/** Thresholds a usage month's change passed: `usage.threshold_reached` for each, once. */
export const raiseUsageThresholds = async (change: StreamChange, now = new Date()): Promise<number> => {
  const { newImage, oldImage = {} } = change;
  const companyId = USAGE_MONTH.exec(String(newImage?.pk ?? ''))?.[1];
  const sk = String(newImage?.sk ?? '');
  if (!newImage || !companyId || !sk.startsWith('M#')) return 0;
  const month = sk.slice(2);
  const grown = (Object.keys(ALLOWANCES) as MeterName[]).filter(
    (m) => Number(newImage[m] ?? 0) > Number(oldImage[m] ?? 0),
  );
  if (grown.length === 0) return 0;
  const limits = await cachedOrLoad(limitsCache, companyId, now.getTime(), () => companyLimits(companyId));
  if (!limits) return 0;
  let raised = 0;
  for (const meter of grown) {
    const limit = Number(limits[ALLOWANCES[meter] as keyof PlanLimits]);
    const before = Number(oldImage[meter] ?? 0);
    const used = Number(newImage[meter] ?? 0);
    for (const threshold of USAGE_THRESHOLDS) {
      const mark = (limit * threshold) / 100;
      if (!(limit > 0 && before < mark && used >= mark)) continue;
      const ok = await putEventOnce(`${month}#${meter}#${threshold}`, {
        companyId,
        type: 'usage.threshold_reached',
        resourceId: `usage:${meter}`,
        data: { meter, threshold, month, used, limit },
        now,
      });
      if (ok) raised++;
    }
  }
  return raised;
};

/** Events of one batch handled at once, across resources (each resource's events stay in order). */
const PARALLEL_RESOURCES = 16;

/**
 * Handles a batch of the stream's changes: the events of different resources in parallel, each resource's
 * in order, then the usage months. The caller retries a batch that throws (every step is idempotent).
 */
export const dispatchChanges = async (changes: StreamChange[]): Promise<void> => {
  const byResource = new Map<string, EventRecord[]>();
  const usage: StreamChange[] = [];
  for (const change of changes) {
    const image = change.newImage;
    if (!image) continue;
    if (change.eventName === 'INSERT' && image.entity === EVENT_ENTITY) {
      const event = toEventRecord(image);
      const key = `${event.companyId}#${event.resourceId}`;
      byResource.set(key, [...(byResource.get(key) ?? []), event]);
    } else if (USAGE_MONTH.test(String(image.pk ?? ''))) usage.push(change);
  }
  const queues = [...byResource.values()];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_RESOURCES, queues.length) }, async () => {
      for (let queue = queues.shift(); queue; queue = queues.shift()) {
        for (const event of queue) {
          const count = await dispatchEvent(event);
          logger.debug('event dispatched', { eventId: event.id, type: event.type, deliveries: count });
        }
      }
    }),
  );
  for (const change of usage) await raiseUsageThresholds(change);
};
