import { EVENT_ENTITY, type EventRecord, toEventRecord } from '../../data/events';
import { companyOfUsagePartition } from '../../data/keys';
import { createDelivery } from '../../data/webhook-deliveries';
import { getEndpoint, listEndpoints, type WebhookEndpointRecord } from '../../data/webhook-endpoints';
import { ulid } from '../../ids';
import { logger } from '../../observability/logger';
import { ITEM_ENTITY } from '../../types/dynadata-types';
import { SETTLED_JOB_ENTITIES } from '../../types/job-entities';
import { itemChangeOf } from '../dynadata/change-events';
import { createItemChangeWriter } from '../dynadata/change-stream';
import { sweepDeletingType, typeSweepOf } from '../dynadata/type-sweep';
import { createJobSettleWriter, jobSettleOf } from '../jobs/settle-stream';
import { startEventRuns } from '../workflows/trigger-sources';
import { sendDelivery } from './delivery-queue';
import { subscribes } from './endpoints';
import { raiseUsageThresholds } from './usage-thresholds';

/**
 * The dispatcher: what the table's stream feeds (on AWS a Lambda event source; locally a poller of
 * DynamoDB Local's stream calls the same function).
 *
 * - A new event item: one delivery per enabled endpoint subscribed to its type (the endpoint tested, for a
 *   `ping`) that existed when the event was raised (an endpoint receives only events raised after its
 *   creation, however late the event is handled), each created once (a record handled twice creates no second delivery),
 *   then its message is sent to the `webhook-delivery` FIFO queue, in the group of its endpoint and
 *   resource (`delivery-queue.ts`): also for a delivery found still pending (a handling that stopped before
 *   its message), which the queue's de-duplication absorbs when it was sent; never for one found ended.
 * - A new event item also starts the company's workflows whose `on.events` lists its type, one run per
 *   event and workflow (`workflows/trigger-sources.ts`), before its deliveries.
 * - A changed usage month (its item, a shard of its `api_requests` or a billing family's item): a meter that passed 80 % or 100 % of
 *   its monthly allowance raises `usage.threshold_reached`, once per meter, threshold and month
 *   (`usage-thresholds.ts`).
 * - A Dynadata type marked deleting, or its deletion handed on to a next turn: the turn deletes a share of its
 *   items (`dynadata/type-sweep.ts`).
 * - A Dynadata item written, of a type that raises change events: its `dynadata.item.*` event, once (and,
 *   for `contacts`, its count and bytes on its type's counter), through `dynadata/change-stream.ts`; the new
 *   event's own record is then dispatched as any event's.
 * - A job's move into a final state (its item with the settle mark of its attempt): the move's event, and the
 *   usage and storage bytes the mark names, once, through `jobs/settle-stream.ts` (decision 0065).
 */
export interface StreamChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
  /** Its place in the batch (the stream's order), to report where a batch must be handled again from. */
  position?: number;
  /** The stream record's id (`eventID`): the same each time the record is handed over. */
  recordId?: string;
  /** When the stream record was made (epoch ms), when known. */
  recordTime?: number;
}

/** An endpoint receives the events raised from its creation on (ISO instants compare as text). */
const existedAt = (
  endpoint: Pick<WebhookEndpointRecord, 'createdAt'>,
  event: Pick<EventRecord, 'createdAt'>,
) => endpoint.createdAt <= event.createdAt;

export const dispatchEvent = async (event: EventRecord): Promise<number> => {
  // Workflows started by the event (`on.events`): once per event and workflow, like a delivery per endpoint.
  await startEventRuns(event);
  const endpoints = event.endpointId
    ? [await getEndpoint(event.companyId, event.endpointId)].filter((e) => e !== undefined)
    : (await listEndpoints(event.companyId)).filter((e) => subscribes(e, event));
  const enabled = endpoints.filter((e) => e.status === 'enabled' && existedAt(e, event));
  for (const endpoint of enabled) {
    const target = { companyId: event.companyId, endpointId: endpoint.id, resourceId: event.resourceId };
    const { state, round } = await createDelivery({
      target,
      eventId: event.id,
      eventType: event.type,
      eventCreatedAt: new Date(event.createdAt),
    });
    if (state !== 'ended') await sendDelivery({ ...target, eventId: event.id, round });
  }
  return enabled.length;
};

/** Changes of one batch handled at once, across resources (each resource's events stay in order). */
const PARALLEL_CHANGES = 16;

/** An event not dispatched because an earlier event of its resource failed: it is handled again with it. */
export class HeldBackError extends Error {
  constructor(eventId: string) {
    super(`event ${eventId} waits for an earlier event of its resource that failed`);
    this.name = 'HeldBackError';
  }
}

/** At most `size` calls of the returned runner at once; the others wait for a free slot, first come first. */
const slots = (size: number) => {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
};

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
 * The dispatcher of one batch of the stream's changes, called once per change in the stream's order (the
 * record handler of the batch processor). It resolves when the change is handled and rejects when it must be
 * handled again. Events of different resources run in parallel (at most `PARALLEL_CHANGES` at once), each
 * resource's in order: an event whose earlier event of the same resource failed is not dispatched but
 * rejected too (`HeldBackError`), so it is handled again after it, in order; the other resources go on. A
 * company's usage changes are handled one after another (a threshold is passed by exactly one change, and
 * the thresholds are raised in the order the meter reached them). A record that cannot be read at all is logged and skipped, so one malformed item never holds the
 * stream back. Every step is idempotent: a change handled twice creates nothing twice.
 */
export const createChangeDispatcher = () => {
  /**
   * A record the dispatcher writes from (`read` makes what it writes, or nothing): one that cannot be read is
   * logged and skipped (no retry could read it); one whose write fails is handed over again.
   */
  const writeFrom =
    <T>(what: string, read: (change: StreamChange) => T | undefined, write: (value: T) => Promise<void>) =>
    (change: StreamChange): Promise<void> => {
      let value: T | undefined;
      try {
        value = read(change);
      } catch (error) {
        logger.error(`${what} record skipped: it cannot be read`, {
          position: change.position,
          error: error as Error,
        });
        return Promise.resolve();
      }
      if (value === undefined) return Promise.resolve();
      return write(value).catch((error: unknown) => {
        logger.error(`${what} change not written: handled again`, {
          position: change.position,
          error: error as Error,
        });
        throw error;
      });
    };
  const writeItemChange = createItemChangeWriter();
  // A record always has its id; a change made by hand (tests) gets a new one.
  const dispatchItemChange = writeFrom(
    'item',
    (change) => itemChangeOf({ ...change, recordId: change.recordId ?? ulid() }),
    writeItemChange,
  );
  const dispatchJobSettle = writeFrom('job', jobSettleOf, createJobSettleWriter());
  const run = slots(PARALLEL_CHANGES);
  const chains = new Map<string, Promise<void>>();
  return (change: StreamChange): Promise<void> => {
    if ((change.newImage ?? change.oldImage)?.entity === ITEM_ENTITY) return dispatchItemChange(change);
    const image = change.newImage;
    if (!image) return Promise.resolve();
    if (SETTLED_JOB_ENTITIES.includes(String(image.entity))) return dispatchJobSettle(change);
    if (change.eventName === 'INSERT' && image.entity === EVENT_ENTITY) {
      const event = readEvent(change);
      if (!event) return Promise.resolve();
      const chain = `${event.companyId}#${event.resourceId}`;
      const previous = chains.get(chain) ?? Promise.resolve();
      const handled = previous.then(
        () =>
          run(async () => {
            try {
              const count = await dispatchEvent(event);
              logger.debug('event dispatched', { eventId: event.id, type: event.type, deliveries: count });
            } catch (error) {
              logger.error('event not dispatched: handled again', {
                eventId: event.id,
                error: error as Error,
              });
              throw error;
            }
          }),
        () => {
          throw new HeldBackError(event.id);
        },
      );
      chains.set(chain, handled);
      return handled;
    }
    const sweep = typeSweepOf(image, change.oldImage);
    if (sweep) {
      // A turn of a type's background deletion; its turns follow one another (each starts the next).
      return run(async () => {
        try {
          await sweepDeletingType(sweep, new Date());
        } catch (error) {
          logger.error('type deletion turn failed: handled again', {
            type: sweep.name,
            error: error as Error,
          });
          throw error;
        }
      });
    }
    if (!companyOfUsagePartition(String(image.pk ?? ''))) return Promise.resolve();
    // One company's usage changes one after another: the thresholds they pass are raised in the order the
    // meter reached them (80 % before 100 %), whatever happened to an earlier change.
    const usageChain = `usage#${String(image.pk)}`;
    const handled = (chains.get(usageChain) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() =>
        run(async () => {
          try {
            await raiseUsageThresholds(change);
          } catch (error) {
            logger.error('usage change not handled: handled again', { error: error as Error });
            throw error;
          }
        }),
      );
    chains.set(usageChain, handled);
    return handled;
  };
};
