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
    sdk: 'contacts.sendMessage',
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
    errors: ['not_found', 'invalid_storage_reference', 'send_at_out_of_range'],
    examples: {
      request: { type: 'text', body: { text: 'Your order has shipped.' } },
      response: { messageId: '01jd3xq0a6m5r6y1z8k7w2v4bn', status: 'queued' },
    },
    agent: {
      tool: 'send_message',
      title: 'Send a message to a contact',
      description:
        'Queues a text or file message to one contact (`contactId`: the contact item `_id`), as POST ' +
        '/v1/contacts/{contactId}/send_message, and answers its `messageId` and `status`; with `sendAt` it ' +
        'is sent at that time instead (`scheduled`).',
      effect: 'create',
    },
    workflow: { action: 'actions/messages/send', maxDurationMs: 5_000 },
  }),
  route({
    method: 'POST',
    path: '/v1/messages/{id}/cancel',
    group: 'contacts',
    operationId: 'cancelMessage',
    sdk: 'messages.cancel',
    summary: 'Cancel a scheduled message',
    description:
      'A message sent with `sendAt` stays `scheduled` until its time: canceling it makes it `canceled`, and ' +
      'it is never sent. Canceling a canceled message answers it again; one already `queued`, `sent` or ' +
      '`failed` answers 409 `message_not_cancelable` with its `messageStatus`. Honours Idempotency-Key.',
    tag: 'Contacts',
    scope: 'messages:send',
    idempotency: 'keyed',
    get params() {
      return z.object({
        id: identifierField('Message item `_id` (the `messageId` send_message answered).'),
      });
    },
    get response() {
      return z.object({
        message: dd.dynadataItemSchema().describe('The message, as the `messages` item shows it.'),
      });
    },
    errors: ['not_found', 'message_not_cancelable'],
    agent: {
      tool: 'cancel_message',
      title: 'Cancel a scheduled message',
      description:
        'Cancels a message sent with `sendAt` while it is still `scheduled` (`id`: its `messageId`), as POST ' +
        '/v1/messages/{id}/cancel; one already on its way answers `message_not_cancelable`.',
      effect: 'update',
    },
    workflow: { action: 'actions/messages/cancel', maxDurationMs: 5_000 },
    examples: {
      response: {
        message: {
          _id: '01jd3xq0a6m5r6y1z8k7w2v4bn',
          _version: 2,
          createdAt: '2026-11-28T09:00:00.000Z',
          updatedAt: '2026-11-28T09:05:00.000Z',
          contactId: '01jd3xpz5c2b7m1x8k4w9v6tqa',
          type: 'text',
          body: { text: 'Your order has shipped.' },
          status: 'canceled',
          attempts: 0,
          sendAt: '2026-11-29T09:00:00.000Z',
          canceledAt: '2026-11-28T09:05:00.000Z',
        },
      },
    },
  }),
] as const;
