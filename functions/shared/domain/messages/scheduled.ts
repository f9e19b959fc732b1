import { deleteSchedule } from '../../aws/scheduler';
import {
  getStoredItem,
  ItemWriteConflictError,
  replaceItem,
  type StoredItem,
} from '../../data/dynadata-items';
import { listDueScheduledMessages } from '../../data/scheduled-messages';
import { env } from '../../env';
import { AppError, NotFoundError } from '../../errors';
import { logger } from '../../observability/logger';
import { type PublicItem, toPublicItem } from '../dynadata/items';
import { startMessageDelivery } from './send-message';
import { SCHEDULE_GRACE_MS, scheduleNameOf } from './send-time';

/**
 * Messages sent later (`sendAt`, decision 0033). send_message stores such a message `scheduled` (with `sendAt`,
 * in the sparse partition of scheduled messages, by time) and then creates a one-time EventBridge Scheduler
 * schedule (`at(…)`, deleted after it fires) whose target, the message sweep, releases it: `scheduled → queued`
 * by a conditional write (into the partition of undelivered messages), then the delivery execution starts as
 * for an immediate send. The item is written before the schedule, so a schedule that could not be created,
 * or was lost, leaves a `scheduled` message whose time passes: the sweep (every 5 minutes on AWS) and the local
 * stack's start-up release those too (`releaseDueScheduledMessages`). A message canceled meanwhile
 * (`scheduled → canceled`, conditional) is never released; deleting its schedule is best effort.
 */

/**
 * Moves a message `scheduled → <patch.status>` by a transaction conditional on the version read; answers the
 * stored message as it is afterwards (unchanged when it was not `scheduled`), or undefined when there is none.
 */
const moveScheduledMessage = async (
  companyId: string,
  messageId: string,
  patch: Record<string, unknown>,
  now: Date,
): Promise<{ item: StoredItem; moved: boolean } | undefined> => {
  for (;;) {
    const previous = await getStoredItem(companyId, 'messages', messageId);
    if (!previous) return undefined;
    if (previous.data.status !== 'scheduled') return { item: previous, moved: false };
    const data = { ...previous.data, ...patch };
    const next: StoredItem = {
      ...previous,
      _version: previous._version + 1,
      updatedAt: now.toISOString(),
      data,
      size: Buffer.byteLength(JSON.stringify(data), 'utf8'),
    };
    try {
      await replaceItem(companyId, 'messages', previous, next, {});
      return { item: next, moved: true };
    } catch (error) {
      if (!(error instanceof ItemWriteConflictError)) throw error;
    }
  }
};

/**
 * A scheduled message is due: `scheduled → queued`, then its delivery starts (as send_message starts it). One
 * already moved on (released by its schedule and the sweep both, canceled) is left alone: `released` false.
 * A start that fails leaves the message `queued`, which the sweep of undelivered messages restarts.
 */
export const releaseScheduledMessage = async (
  companyId: string,
  messageId: string,
  now: Date,
): Promise<{ released: boolean }> => {
  const result = await moveScheduledMessage(companyId, messageId, { status: 'queued' }, now);
  if (!result?.moved) return { released: false };
  await startMessageDelivery(companyId, messageId);
  return { released: true };
};

export interface ReleasedMessages {
  released: number;
  /** Already moved on (released by their schedule meanwhile, or canceled). */
  unchanged: number;
  /** Their release failed; the next sweep tries again. */
  failed: number;
}

/**
 * Releases every message still `scheduled` whose time passed more than `lateByMs` ago: its schedule was lost
 * (never created, or a local stack that was down when it fell due). The sweep waits `SCHEDULE_GRACE_MS`, so a
 * schedule that is merely about to fire does it; the local stack's start-up waits for nothing.
 */
export const releaseDueScheduledMessages = async (
  now: Date,
  { lateByMs = SCHEDULE_GRACE_MS }: { lateByMs?: number } = {},
): Promise<ReleasedMessages> => {
  const counts: ReleasedMessages = { released: 0, unchanged: 0, failed: 0 };
  for (const message of await listDueScheduledMessages(new Date(now.getTime() - lateByMs))) {
    try {
      const { released } = await releaseScheduledMessage(message.companyId, message.messageId, now);
      counts[released ? 'released' : 'unchanged'] += 1;
    } catch (error) {
      counts.failed += 1;
      logger.error('scheduled message could not be released', { ...message, error });
    }
  }
  return counts;
};

/**
 * Cancels a message that is still `scheduled`: `scheduled → canceled` (conditional), then its schedule is
 * deleted (best effort: a schedule that fires anyway finds the message canceled and sends nothing). A message
 * already canceled is answered as it is; one that has moved on (`queued`, `sent`, `failed`, ...) is a 409
 * `message_not_cancelable` with its status; another company's or a missing one is a 404.
 */
export const cancelScheduledMessage = async (
  companyId: string,
  messageId: string,
  now: Date,
): Promise<PublicItem> => {
  const result = await moveScheduledMessage(
    companyId,
    messageId,
    { status: 'canceled', canceledAt: now.toISOString() },
    now,
  );
  if (!result) throw new NotFoundError(`There is no message ${messageId}.`);
  const status = String(result.item.data.status);
  if (!result.moved && status !== 'canceled')
    throw new AppError(
      'message_not_cancelable',
      `The message is ${status}: only a scheduled message is canceled.`,
      {
        extensions: { messageStatus: status },
      },
    );
  if (result.moved)
    await deleteSchedule(scheduleNameOf(companyId, messageId), env().messageSchedules).catch(
      (error: unknown) =>
        logger.warn('the schedule of a canceled message could not be deleted', {
          companyId,
          messageId,
          error,
        }),
    );
  return toPublicItem(result.item);
};
