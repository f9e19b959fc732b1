import {
  getStoredItem,
  ItemWriteConflictError,
  replaceItem,
  type StoredItem,
} from '../../data/dynadata-items';
import { eventItem } from '../../data/events';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import type { EventType } from '../../types/events';
import { type PublicItem, toPublicItem } from '../dynadata/items';

/**
 * What the company's sender reports about a message it was given (`POST /v1/messages/{id}/status`):
 * `delivered`, `read` or `failed` (with its reason). Outbound statuses only move forward, `queued → sent →
 * delivered → read`; `failed` ends a message that is not yet `read`. A report may overtake the platform's
 * own `sent` (the sender can answer before the delivery's write lands): it moves a `queued` message as well,
 * and the delivery's later `sent` write then changes nothing. A report of the status the message already has
 * changes nothing and answers 200 (`changed: false`), so a sender may repeat it; any other move answers 409
 * `message_status_regression` with the message's status as `messageStatus`. Inbound messages (`received`)
 * take no report. Each move raises `message.<status>` in the transaction that writes it, conditional on the
 * message's `_version` as read.
 */
export const REPORTED_STATUSES = ['delivered', 'read', 'failed'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

export interface StatusReport {
  status: ReportedStatus;
  reason?: string | undefined;
  at?: string | undefined;
}

/** How far along an outbound message is; a report moves it only further. */
const PROGRESS: Record<string, number | undefined> = { queued: 0, sent: 1, delivered: 2, read: 3 };

const REPORT_EVENTS: Record<ReportedStatus, EventType> = {
  delivered: 'message.delivered',
  read: 'message.read',
  failed: 'message.failed',
};

/** How far ahead of the clock a report's `at` may be (the sender's clock may run a little fast). */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** Whether a message of status `current` may move to `next`. */
const mayMove = (current: string, next: ReportedStatus): boolean => {
  const from = PROGRESS[current];
  if (from === undefined) return false;
  return next === 'failed' ? from < (PROGRESS.read ?? 3) : from < (PROGRESS[next] ?? 0);
};

/** The fields a report writes on the message. */
const reportPatch = (message: StoredItem, report: StatusReport, at: string): Record<string, unknown> => {
  if (report.status === 'delivered') return { status: 'delivered', deliveredAt: at };
  if (report.status === 'read')
    return { status: 'read', readAt: at, deliveredAt: message.data.deliveredAt ?? at };
  return { status: 'failed', failedAt: at, failureReason: report.reason ?? 'reported failed by the sender' };
};

const regression = (current: string, next: ReportedStatus) =>
  new AppError('message_status_regression', `The message is ${current}: it cannot become ${next}.`, {
    extensions: { messageStatus: current },
  });

/** The time a report took place: `at` when given (not ahead of the clock), otherwise now. */
const reportTime = (at: string | undefined, now: Date): string => {
  if (at === undefined) return now.toISOString();
  const time = Date.parse(at);
  if (time > now.getTime() + MAX_CLOCK_SKEW_MS)
    throw new ValidationError([{ pointer: '/body/at', message: 'is in the future' }]);
  return new Date(time).toISOString();
};

export const reportMessageStatus = async (
  companyId: string,
  messageId: string,
  report: StatusReport,
  now: Date,
): Promise<{ message: PublicItem; changed: boolean }> => {
  const at = reportTime(report.at, now);
  for (let attempt = 0; attempt < 5; attempt++) {
    const previous = await getStoredItem(companyId, 'messages', messageId);
    if (!previous) throw new NotFoundError(`There is no message ${messageId}.`);
    const current = String(previous.data.status);
    if (current === report.status) return { message: toPublicItem(previous), changed: false };
    if (!mayMove(current, report.status)) throw regression(current, report.status);
    const data = { ...previous.data, ...reportPatch(previous, report, at) };
    const next: StoredItem = {
      ...previous,
      _version: previous._version + 1,
      updatedAt: now.toISOString(),
      data,
      size: Buffer.byteLength(JSON.stringify(data), 'utf8'),
    };
    const type = REPORT_EVENTS[report.status];
    const event = eventItem({ companyId, type, resourceId: messageId, data: toPublicItem(next), now });
    try {
      await replaceItem(companyId, 'messages', previous, next, {}, [event]);
      return { message: toPublicItem(next), changed: true };
    } catch (error) {
      // Another write (the delivery, another report) came first: read the message again and decide again.
      if (!(error instanceof ItemWriteConflictError)) throw error;
    }
  }
  throw new AppError('conflict', 'The message keeps changing; report again.');
};
