import { contactThread } from '../domain/messages/contact-thread';
import { reportMessageStatus as reportStatus } from '../domain/messages/message-reports';
import { receiveMessageFromContact } from '../domain/messages/receive-message';
import { cancelScheduledMessage } from '../domain/messages/scheduled';
import { sendMessageToContact } from '../domain/messages/send-message';
import type { RouteHandler } from '../http/router';

/** What sending a message does: its route, its MCP tool and its workflow action. */
export const sendMessage: RouteHandler<'sendMessage'> = async ({ auth, params, body, now }) => ({
  body: await sendMessageToContact(auth.companyId, params.contactId, body, now),
});

/** The sender's report of what became of a message. */
export const reportMessageStatus: RouteHandler<'reportMessageStatus'> = async ({
  auth,
  params,
  body,
  now,
}) => ({ body: await reportStatus(auth.companyId, params.id, body, now) });

/** A message a contact sent, posted by the sender. */
export const receiveMessage: RouteHandler<'receiveMessage'> = async ({ auth, body, now }) => ({
  status: 201,
  body: await receiveMessageFromContact(auth.companyId, body, now),
});

/** A contact's thread. */
export const listContactMessages: RouteHandler<'listContactMessages'> = async ({ auth, params, query }) => ({
  body: await contactThread(auth.companyId, params.contactId, query),
});

/** Cancels a message that is still `scheduled` (`domain/messages/scheduled.ts`). */
export const cancelMessage: RouteHandler<'cancelMessage'> = async ({ auth, params, now }) => ({
  body: { message: await cancelScheduledMessage(auth.companyId, params.id, now) },
});
