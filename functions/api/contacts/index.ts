import { assertCursorKeyConfigured } from '../../shared/domain/dynadata/cursor-key';
import { sendMessageToContact } from '../../shared/domain/messages/send-message';
import { createApiHandler } from '../../shared/http/middleware';

// Lists sign their cursors: without a configured key the function refuses to start.
assertCursorKeyConfigured();

export const handler = createApiHandler('contacts', {
  sendMessage: async ({ auth, params, body }) => ({
    body: await sendMessageToContact(auth.companyId, params.contactId, body, new Date()),
  }),
});
