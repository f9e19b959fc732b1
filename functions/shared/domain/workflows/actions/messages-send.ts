import * as z from '../../../zod';
import { sendMessageBody } from '../../messages/message-body';
import { sendMessageToContact } from '../../messages/send-message';
import { defineAction } from './registry';

/** `actions/messages/send`: `POST /v1/contacts/{contactId}/send_message`. */
export const messagesSend = defineAction({
  name: 'actions/messages/send',
  scope: 'messages:send',
  maxDurationMs: 5_000,
  get input() {
    return z.intersection(z.object({ contactId: z.string().min(1).max(64) }), sendMessageBody());
  },
  run: ({ contactId, ...message }, ctx) => sendMessageToContact(ctx.companyId, contactId, message, ctx.now),
});
