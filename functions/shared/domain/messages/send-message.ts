import { ExecutionAlreadyExistsError, startExecution } from '../../aws/step-functions';
import { insertItem } from '../../data/dynadata-items';
import { threadEntryItem } from '../../data/message-threads';
import { logger } from '../../observability/logger';
import { DELIVERY_START_FAILED } from './failure-reason';
import type { SendMessageBody } from './message-body';
import { failMessage } from './message-status';
import { scheduleMessage, sendTimeOf } from './send-time';
import { checkedMessage, newMessageItem } from './stored-message';

/**
 * send_message: the message is stored as an item of the built-in `messages` type (`{contactId, direction,
 * type, body, status, attempts}`, status `queued`) in one transaction that also counts its bytes and puts it
 * on the contact's thread, and answered with 202 `{messageId, status: "queued"}`. An unknown contact answers
 * 404; a `file` that is not one of the company's stored files answers 404 as well (a foreign path and a
 * missing file look the same).
 *
 * Cost: one GetItem (the contact), one GetItem per file, one transaction, then the delivery execution.
 * Delivery runs in the `message-delivery` state machine, one execution per message named after it, so a
 * repeated start is harmless. A start that fails after the message was stored moves it `queued → failed`
 * (error `delivery_start_failed`, a conditional write, so a delivery that did start is never overridden)
 * before the error is answered as a 500: no message stays `queued` with nothing to deliver it.
 *
 * With a `sendAt` ahead of now the message is stored `scheduled` (with `sendAt`) and answered 202
 * `{messageId, status: "scheduled", sendAt}`; its one-time schedule is created after the write, and a schedule
 * that cannot be created is only logged: the sweep sends a `scheduled` message whose time has passed
 * (`scheduled.ts`, decision 0033).
 */

export const deliveryExecutionName = (companyId: string, messageId: string): string =>
  `${companyId}-${messageId}`;

export const startMessageDelivery = async (companyId: string, messageId: string): Promise<void> => {
  try {
    await startExecution('message-delivery', deliveryExecutionName(companyId, messageId), {
      companyId,
      messageId,
    });
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExistsError)) throw error;
  }
};

export const sendMessageToContact = async (
  companyId: string,
  contactId: string,
  message: SendMessageBody,
  now: Date,
): Promise<
  { messageId: string; status: 'queued' } | { messageId: string; status: 'scheduled'; sendAt: string }
> => {
  const sendAt = sendTimeOf(message.sendAt, now);
  await checkedMessage(companyId, contactId, message);
  const item = newMessageItem(
    {
      contactId,
      direction: 'outbound',
      type: message.type,
      body: message.body,
      status: sendAt ? 'scheduled' : 'queued',
      attempts: 0,
      ...(sendAt ? { sendAt: sendAt.toISOString() } : {}),
    },
    now,
  );
  // The message joins its contact's thread in the transaction that stores it.
  await insertItem(companyId, 'messages', item, {}, [threadEntryItem(companyId, contactId, item._id)]);
  if (sendAt) {
    await scheduleMessage(companyId, item._id, sendAt).catch((cause: unknown) =>
      logger.error('message schedule could not be created; the sweep sends it', {
        messageId: item._id,
        cause,
      }),
    );
    return { messageId: item._id, status: 'scheduled', sendAt: sendAt.toISOString() };
  }
  try {
    await startMessageDelivery(companyId, item._id);
  } catch (error) {
    await failMessage({ companyId, messageId: item._id, error: { Error: DELIVERY_START_FAILED } }, now).catch(
      (cause: unknown) => logger.error('message could not be marked failed', { messageId: item._id, cause }),
    );
    throw error;
  }
  return { messageId: item._id, status: 'queued' };
};
