import { getStoredItem, insertItem, type StoredItem } from '../../data/dynadata-items';
import { NotFoundError } from '../../errors';
import { ulid } from '../../ids';
import type { SendMessageBody } from '../../routes/dynadata-schemas';
import { storageReferenceProblem } from '../dynadata/document-references';

/**
 * send_message: the message is stored as an item of the built-in `messages` type (`{contactId, type, body,
 * status, attempts}`, status `queued`) in one transaction that also counts its bytes, and answered with 202
 * `{messageId, status: "queued"}`. An unknown contact answers 404; a `file` that is not one of the company's
 * files answers 404 as well (a foreign path and a missing file look the same).
 *
 * Cost: one GetItem (the contact) and one transaction.
 */
export const sendMessageToContact = async (
  companyId: string,
  contactId: string,
  message: SendMessageBody,
  now: Date,
): Promise<{ messageId: string; status: 'queued' }> => {
  const contact = await getStoredItem(companyId, 'contacts', contactId);
  if (!contact) throw new NotFoundError(`There is no contact ${contactId}.`);
  if (message.type !== 'text' && storageReferenceProblem(companyId, message.body.file)) {
    throw new NotFoundError('There is no such file among your stored files.');
  }
  const stamp = now.toISOString();
  const data = { contactId, type: message.type, body: message.body, status: 'queued', attempts: 0 };
  const item: StoredItem = {
    _id: ulid(now.getTime()),
    _version: 1,
    createdAt: stamp,
    updatedAt: stamp,
    data,
    size: Buffer.byteLength(JSON.stringify(data), 'utf8'),
  };
  await insertItem(companyId, 'messages', item, {});
  return { messageId: item._id, status: 'queued' };
};
