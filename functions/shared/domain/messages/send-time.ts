import { putSchedule } from '../../aws/scheduler';
import { env } from '../../env';
import { AppError } from '../../errors';

/**
 * When a message is to be sent (`sendAt`) and the one-time schedule that sends it then (decision 0033;
 * `scheduled.ts` releases and cancels scheduled messages).
 */

/** How far ahead a message may be scheduled. */
export const MAX_SEND_AHEAD_MS = 30 * 24 * 3600_000;
/** How far in the past `sendAt` may be (clock skew of the caller): such a message is sent at once. */
export const SEND_AT_PAST_TOLERANCE_MS = 60_000;
/**
 * How late past its time the sweep releases a message still `scheduled`: its schedule should have fired by
 * then (EventBridge Scheduler invokes within about a minute).
 */
export const SCHEDULE_GRACE_MS = 2 * 60_000;

const SEND_AT_POINTER = '/body/sendAt';

/**
 * The time a message asks to be sent at: undefined to send it now (no `sendAt`, or one not after `now`, up to
 * the tolerance in the past); a 400 `send_at_out_of_range` for one further in the past or more than 30 days ahead.
 */
export const sendTimeOf = (sendAt: string | undefined, now: Date): Date | undefined => {
  if (sendAt === undefined) return undefined;
  const at = new Date(sendAt);
  const ahead = at.getTime() - now.getTime();
  const problem =
    ahead < -SEND_AT_PAST_TOLERANCE_MS
      ? 'sendAt is in the past'
      : ahead > MAX_SEND_AHEAD_MS
        ? 'sendAt is more than 30 days ahead'
        : undefined;
  if (problem)
    throw new AppError(
      'send_at_out_of_range',
      `${problem}: a message may be scheduled up to 30 days ahead.`,
      {
        errors: [{ pointer: SEND_AT_POINTER, message: problem }],
      },
    );
  return ahead > 0 ? at : undefined;
};

/** The schedule of a message: within the 64 characters of a schedule name (`m-co_<ulid>-<ulid>`). */
export const scheduleNameOf = (companyId: string, messageId: string) => `m-${companyId}-${messageId}`;

/** `at(yyyy-mm-ddThh:mm:ss)` at or after `at` (the expression has whole seconds: never early). */
const atExpression = (at: Date): string =>
  `at(${new Date(Math.ceil(at.getTime() / 1000) * 1000).toISOString().slice(0, 19)})`;

const scheduleSettings = () => {
  const settings = env().messageSchedules;
  if (!settings) throw new Error('Message schedules are not configured (MESSAGE_SCHEDULE_GROUP is not set)');
  return settings;
};

/** Creates the one-time schedule that releases a `scheduled` message at its time. */
export const scheduleMessage = async (companyId: string, messageId: string, at: Date): Promise<void> =>
  // Async, so that missing settings reject like a failed creation (the sweep sends the message) rather than throw.
  putSchedule(
    scheduleNameOf(companyId, messageId),
    atExpression(at),
    JSON.stringify({ companyId, messageId }),
    {
      settings: scheduleSettings(),
      deleteAfterCompletion: true,
    },
  );
