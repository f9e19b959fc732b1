import { getStoredItem } from '../../data/dynadata-items';
import { threadPage } from '../../data/message-threads';
import { NotFoundError } from '../../errors';
import { DEFAULT_THREAD_PAGE } from '../../types/message-threads';
import { type PublicItem, toPublicItem } from '../dynadata/items';
import { listCursor, type Page, type PageRequest } from '../pages';

/**
 * A contact's thread (`GET /v1/contacts/{contactId}/messages`): its messages in both directions, newest first,
 * `limit` a page (20 by default, at most 100), the cursor the `_id` of the last message shown. A message
 * stored before it had a `direction` was sent: it shows `direction: "outbound"`. Another company's contact,
 * like a missing one, answers 404.
 */
const MESSAGE_ID = /^[0-9a-z]{26}$/;

export const contactThread = async (
  companyId: string,
  contactId: string,
  request: PageRequest,
): Promise<{ messages: PublicItem[]; nextCursor: Page<PublicItem>['nextCursor'] }> => {
  const before = listCursor(request.cursor, MESSAGE_ID);
  const contact = await getStoredItem(companyId, 'contacts', contactId);
  if (!contact) throw new NotFoundError(`There is no contact ${contactId}.`);
  const { messages, next } = await threadPage(
    companyId,
    contactId,
    request.limit ?? DEFAULT_THREAD_PAGE,
    before,
  );
  const shown = messages.map((m) => ({ direction: 'outbound', ...toPublicItem(m) }));
  return { messages: shown, nextCursor: next ?? null };
};
