import { assertCursorKeyConfigured } from '../../shared/domain/dynadata/cursor-key';
import { withIdempotency } from '../../shared/domain/idempotency';
import { sendMessageToContact } from '../../shared/domain/messages/send-message';
import { createApiHandler } from '../../shared/http/middleware';

// Lists sign their cursors: without a configured key the function refuses to start.
assertCursorKeyConfigured();

export const handler = createApiHandler('contacts', {
  sendMessage: ({ auth, params, body, headers }) =>
    withIdempotency(
      auth.companyId,
      headers,
      { method: 'POST', path: `send_message/${params.contactId}`, body },
      async () => ({
        status: 202,
        body: await sendMessageToContact(auth.companyId, params.contactId, body, new Date()),
      }),
    ),
});
