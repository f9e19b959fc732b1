import { sendMessageToContact } from '../../shared/domain/messages/send-message';
import { createApiHandler } from '../../shared/http/middleware';
import { CONTACT_ROUTES } from '../../shared/routes/contact-routes';

// No route of this group lists, so it holds no list-cursor key (the dynadata group asserts it has one).
export const handler = createApiHandler('contacts', CONTACT_ROUTES, {
  sendMessage: async ({ auth, params, body }) => ({
    body: await sendMessageToContact(auth.companyId, params.contactId, body, new Date()),
  }),
});
