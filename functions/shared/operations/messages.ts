import { sendMessageToContact } from '../domain/messages/send-message';
import type { RouteHandler } from '../http/router';

/** What sending a message does: its route, its MCP tool and its workflow action. */
export const sendMessage: RouteHandler<'sendMessage'> = async ({ auth, params, body, now }) => ({
  body: await sendMessageToContact(auth.companyId, params.contactId, body, now),
});
