import { identifierField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { DEFAULT_THREAD_PAGE, MAX_THREAD_PAGE } from '../types/message-threads';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { route } from './route-definition';
import { nextCursorSchema, pageQuery } from './schemas';

/**
 * The routes that close a message's loop (group `contacts`): what the company's sender reports about the
 * messages it was given, what contacts send the company, and a contact's thread of both. A section of the
 * route table (`route-table.ts` joins the sections into `ROUTES`).
 */
const REPORTED = ['delivered', 'read', 'failed'] as const;

const statusReportBody = /* @__PURE__ */ lazy(() =>
  z
    .object({
      status: z.enum(REPORTED).describe('What became of the message: `delivered`, `read` or `failed`.'),
      reason: z
        .string()
        .min(1)
        .max(500)
        .optional()
        .describe('Why it failed (with `failed`; kept as `failureReason`).'),
      at: timestampField()
        .max(40)
        .optional()
        .describe('When it happened (ISO 8601, at most five minutes ahead); default: when reported.'),
    })
    .strict(),
);

const messageParams = /* @__PURE__ */ lazy(() =>
  z.object({ id: identifierField('Message item `_id` (type `messages`).') }),
);

const MESSAGE_EXAMPLE = {
  _id: '01jd3xq0a6m5r6y1z8k7w2v4bn',
  _version: 4,
  createdAt: '2026-11-29T09:00:00.000Z',
  updatedAt: '2026-11-29T09:00:07.000Z',
  contactId: '01jd3xpy5b0c7t8v9w0x1y2z3a',
  direction: 'outbound',
  type: 'text',
  body: { text: 'Your order has shipped.' },
  status: 'delivered',
  attempts: 1,
  sentAt: '2026-11-29T09:00:01.000Z',
  deliveredAt: '2026-11-29T09:00:06.000Z',
};

export const MESSAGE_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/messages/{id}/status',
    group: 'contacts',
    operationId: 'reportMessageStatus',
    sdk: 'messages.reportStatus',
    summary: 'Report what became of a message (the sender)',
    description:
      "The company's sender reports a message it was given `delivered`, `read` or `failed` (with a " +
      '`reason`). Statuses only move forward (`queued → sent → delivered → read`; `failed` before `read`), ' +
      'each move raising `message.delivered`, `message.read` or `message.failed`. Reporting the status the ' +
      'message already has answers 200 with `changed: false`; any other move answers 409 ' +
      '`message_status_regression` with the status as `messageStatus`. Another company’s message answers 404.',
    tag: 'Contacts',
    scope: 'messages:report',
    get params() {
      return messageParams();
    },
    get body() {
      return statusReportBody();
    },
    get response() {
      return z.object({
        message: dd.dynadataItemSchema().describe('The message after the report.'),
        changed: z.boolean().describe('false: the message already had that status (nothing raised).'),
      });
    },
    idempotency: 'keyed',
    errors: ['not_found', 'message_status_regression', 'conflict'],
    examples: {
      request: { status: 'delivered', at: '2026-11-29T09:00:06.000Z' },
      response: { message: MESSAGE_EXAMPLE, changed: true },
    },
  }),
  route({
    method: 'POST',
    path: '/v1/messages/inbound',
    group: 'contacts',
    operationId: 'receiveMessage',
    sdk: 'messages.receive',
    summary: 'Store a message a contact sent (the sender)',
    description:
      "The company's sender posts what a contact sent: stored as a `messages` item with `direction: " +
      '"inbound"` and status `received`, on the contact’s thread, raising `message.received`. An unknown ' +
      'contact, or another company’s, answers 404.',
    tag: 'Contacts',
    scope: 'messages:report',
    get body() {
      return z
        .object({
          contactId: identifierField('Contact item `_id` of who sent it.'),
          message: dd.sendMessageBody(),
        })
        .strict();
    },
    get response() {
      return z.object({
        messageId: z.string().describe('`_id` of the stored message (type `messages`).'),
        status: z.literal('received'),
      });
    },
    successStatus: 201,
    idempotency: 'keyed',
    errors: ['not_found', 'invalid_storage_reference'],
    examples: {
      request: {
        contactId: '01jd3xpy5b0c7t8v9w0x1y2z3a',
        message: { type: 'text', body: { text: 'Thanks!' } },
      },
      response: { messageId: '01jd3xr2c8n7s0z2a9m8x3w5cp', status: 'received' },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{contactId}/messages',
    group: 'contacts',
    operationId: 'listContactMessages',
    sdk: 'contacts.messages.list',
    summary: "A contact's messages, both directions, newest first",
    description:
      'Sent and received messages of one contact, newest first (`direction` says which; a message sent ' +
      'before directions existed reads `outbound`). Pages follow the one paging rule. Another company’s ' +
      'contact answers 404.',
    tag: 'Contacts',
    scope: 'dynadata:read',
    get params() {
      return z.object({ contactId: identifierField('Contact item `_id`.') });
    },
    get query() {
      return z.object(pageQuery('Messages', MAX_THREAD_PAGE, DEFAULT_THREAD_PAGE));
    },
    get response() {
      return z.object({ messages: z.array(dd.dynadataItemSchema()), nextCursor: nextCursorSchema() });
    },
    errors: ['not_found'],
    examples: { response: { messages: [MESSAGE_EXAMPLE], nextCursor: null } },
    agent: {
      tool: 'list_contact_messages',
      title: "List a contact's messages",
      description:
        'The messages sent to and received from one contact, newest first, a page at a time, as GET ' +
        '/v1/contacts/{contactId}/messages.',
      effect: 'read',
    },
    workflow: { action: 'actions/messages/thread', maxDurationMs: 5_000 },
  }),
] as const;
