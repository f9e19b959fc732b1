import { insertItem } from '../../data/dynadata-items';
import { eventItem } from '../../data/events';
import { threadEntryItem } from '../../data/message-threads';
import { toPublicItem } from '../dynadata/items';
import type { SendMessageBody } from './message-body';
import { checkedMessage, newMessageItem } from './stored-message';

/**
 * An inbound message (`POST /v1/messages/inbound`): what a contact sent the company, posted by the company's
 * sender. It names the contact by its `_id` (the sender was given it with every outbound message) and carries
 * a message of the shapes send_message takes. It is stored as an item of the `messages` type with `direction:
 * "inbound"` and status `received`, joins the contact's thread and raises `message.received`, all in one
 * transaction (which also counts its bytes, as a sent message's). An unknown contact answers 404.
 */
export const receiveMessageFromContact = async (
  companyId: string,
  input: { contactId: string; message: SendMessageBody },
  now: Date,
): Promise<{ messageId: string; status: 'received' }> => {
  const { contactId, message } = input;
  await checkedMessage(companyId, contactId, message, '/body/message/body');
  const item = newMessageItem(
    {
      contactId,
      direction: 'inbound',
      type: message.type,
      body: message.body,
      status: 'received',
      receivedAt: now.toISOString(),
    },
    now,
  );
  await insertItem(companyId, 'messages', item, {}, [
    threadEntryItem(companyId, contactId, item._id),
    eventItem({ companyId, type: 'message.received', resourceId: item._id, data: toPublicItem(item), now }),
  ]);
  return { messageId: item._id, status: 'received' };
};
