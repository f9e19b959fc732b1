import { getStoredItem, type StoredItem } from '../../data/dynadata-items';
import { NotFoundError } from '../../errors';
import { ulid } from '../../ids';
import { resolveStoredObject } from '../storage-references';
import type { SendMessageBody } from './message-body';

/**
 * What sending and receiving a message share: the contact must be one of the company's (404 otherwise) and a
 * file a message carries one of its stored files (a foreign path and a missing file are both 404; a
 * malformed path is 400 with its pointer, `pointer` the place of the message's body in the request).
 */
export const checkedMessage = async (
  companyId: string,
  contactId: string,
  message: SendMessageBody,
  pointer = '/body/body',
): Promise<void> => {
  const contact = await getStoredItem(companyId, 'contacts', contactId);
  if (!contact) throw new NotFoundError(`There is no contact ${contactId}.`);
  if (message.type !== 'text')
    await resolveStoredObject(companyId, message.body.file, `${pointer}/file/fullPath`);
};

/** A new item of the `messages` type holding `data`, stored at `now` (its `_id` a ULID of that time). */
export const newMessageItem = (data: Record<string, unknown>, now: Date): StoredItem => {
  const stamp = now.toISOString();
  return {
    _id: ulid(now.getTime()),
    _version: 1,
    createdAt: stamp,
    updatedAt: stamp,
    data,
    size: Buffer.byteLength(JSON.stringify(data), 'utf8'),
  };
};
