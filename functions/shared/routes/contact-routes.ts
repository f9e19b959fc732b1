import { identifierField } from '../fields';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { route } from './route-definition';

/**
 * The routes of messages to contacts (group `contacts`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const CONTACT_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/contacts/{contactId}/send_message',
    group: 'contacts',
    operationId: 'sendMessage',
    summary: 'Send a message to one contact',
    tag: 'Contacts',
    scope: 'messages:send',
    get params() {
      return z.object({ contactId: identifierField('Contact item `_id`.') });
    },
    get body() {
      return dd.sendMessageBody();
    },
    get response() {
      return dd.sendMessageResponse();
    },
    successStatus: 202,
    idempotency: 'keyed',
    errors: ['not_found', 'invalid_storage_reference'],
    examples: {
      request: { type: 'text', body: { text: 'Your order has shipped.' } },
      response: { messageId: '01jd3xq0a6m5r6y1z8k7w2v4bn', status: 'queued' },
    },
    agent: {
      tool: 'send_message',
      title: 'Send a message to a contact',
      description:
        'Queues a text or file message to one contact (`contactId`: the contact item `_id`), as POST ' +
        '/v1/contacts/{contactId}/send_message, and answers its `messageId` and `status`.',
      effect: 'create',
    },
    workflow: { action: 'actions/messages/send', maxDurationMs: 5_000 },
  }),
] as const;
