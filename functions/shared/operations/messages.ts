import { cancelScheduledMessage } from '../domain/messages/scheduled';
import { sendMessageToContact } from '../domain/messages/send-message';
import type { RouteHandler } from '../http/router';

/** What sending a message does: its route, its MCP tool and its workflow action. */
export const sendMessage: RouteHandler<'sendMessage'> = async ({ auth, params, body, now }) => ({
  body: await sendMessageToContact(auth.companyId, params.contactId, body, now),
});

/** Cancels a message that is still `scheduled` (`domain/messages/scheduled.ts`). */
export const cancelMessage: RouteHandler<'cancelMessage'> = async ({ auth, params, now }) => ({
  body: { message: await cancelScheduledMessage(auth.companyId, params.messageId, now) },
});
