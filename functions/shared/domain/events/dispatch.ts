import { EVENT_ENTITY, type EventRecord, putEventOnce, toEventRecord } from '../../data/events';
import { companyOfUsagePartition, monthOfUsageSortKey } from '../../data/keys';
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
  /** Its place in the batch (the stream's order), to report where a batch must be handled again from. */
  position?: number;
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

/** Thresholds a usage month's change passed: `usage.threshold_reached` for each, once. */
export const raiseUsageThresholds = async (change: StreamChange, now = new Date()): Promise<number> => {
  const { newImage, oldImage = {} } = change;
  const companyId = companyOfUsagePartition(String(newImage?.pk ?? ''));
  const month = monthOfUsageSortKey(String(newImage?.sk ?? ''));
  if (!newImage || !companyId || month === undefined) return 0;
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

/** Where a batch must be handled again from: the earliest change that failed, or none. */
export interface DispatchOutcome {
  retryFrom?: number;
}

/** An event record that cannot be read (its item is malformed): no retry can read it, so it is not retried. */
const readEvent = (change: StreamChange): EventRecord | undefined => {
  try {
    return toEventRecord(change.newImage ?? {});
  } catch (error) {
    logger.error('event record skipped: it cannot be read', {
      position: change.position,
      error: error as Error,
    });
    return undefined;
  }
};

/**
 * Handles a batch of the stream's changes: the events of different resources in parallel, each resource's
 * in order, then the usage months. A change that fails does not fail the others: its resource's later
 * events wait (they are handled again with it, in order), the other resources go on, and the outcome names
 * the earliest failed change, from where the caller has the batch handled again (every step is
 * idempotent: a change handled twice creates nothing twice). A record that cannot be read at all is logged
 * and skipped, so one malformed item never holds the stream back.
 */
export const dispatchChanges = async (changes: StreamChange[]): Promise<DispatchOutcome> => {
  const byResource = new Map<string, { event: EventRecord; position: number }[]>();
  const usage: StreamChange[] = [];
  for (const [index, change] of changes.entries()) {
    const image = change.newImage;
    if (!image) continue;
    const position = change.position ?? index;
    if (change.eventName === 'INSERT' && image.entity === EVENT_ENTITY) {
      const event = readEvent({ ...change, position });
      if (!event) continue;
      const key = `${event.companyId}#${event.resourceId}`;
      byResource.set(key, [...(byResource.get(key) ?? []), { event, position }]);
    } else if (companyOfUsagePartition(String(image.pk ?? ''))) usage.push({ ...change, position });
  }
  const failed: number[] = [];
  const queues = [...byResource.values()];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_RESOURCES, queues.length) }, async () => {
      for (let queue = queues.shift(); queue; queue = queues.shift()) {
        for (const { event, position } of queue) {
          try {
            const count = await dispatchEvent(event);
            logger.debug('event dispatched', { eventId: event.id, type: event.type, deliveries: count });
          } catch (error) {
            logger.error('event not dispatched: handled again', { eventId: event.id, error: error as Error });
            failed.push(position);
            break;
          }
        }
      }
    }),
  );
  for (const change of usage) {
    try {
      await raiseUsageThresholds(change);
    } catch (error) {
      logger.error('usage change not handled: handled again', { error: error as Error });
      failed.push(change.position ?? 0);
    }
  }
  return failed.length === 0 ? {} : { retryFrom: Math.min(...failed) };
};
