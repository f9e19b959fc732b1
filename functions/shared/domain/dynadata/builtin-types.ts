import { lazy } from '../../lazy';
import { documentFieldSchema, JSON_SCHEMA_DIALECT, type JsonSchema } from './json-schema-shapes';

/**
 * The built-in Dynadata types every company has. Their schemas are fixed here (custom types are stored per
 * company by operators). `messages` and `log_entries` are records the platform writes: read-only through
 * the API (`log_entries` writes can be restored by self-hosted operators with `V1_ALLOW_LOG_ENTRY_WRITES`).
 */
export const BUILTIN_TYPE_NAMES = ['contacts', 'messages', 'log_entries'] as const;
export type BuiltinTypeName = (typeof BUILTIN_TYPE_NAMES)[number];

export const isBuiltinTypeName = (name: string): name is BuiltinTypeName =>
  (BUILTIN_TYPE_NAMES as readonly string[]).includes(name);

const label = { type: 'string', minLength: 1, maxLength: 50, description: 'Free label, e.g. `work`.' };

/** The built-in schemas are built by their first use (the contacts group, a Dynadata request of the type). */
const contactsSchema = /* @__PURE__ */ lazy(
  (): JsonSchema => ({
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    description: 'A person or organisation the company sends messages to.',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200, description: 'Display name.' },
      phoneNumbers: {
        type: 'array',
        maxItems: 20,
        description: 'Phone numbers in E.164 form.',
        items: {
          type: 'object',
          properties: {
            label,
            number: {
              type: 'string',
              maxLength: 16,
              pattern: '^\\+[1-9]\\d{6,14}$',
              description: 'E.164, e.g. +14155550100.',
            },
          },
          required: ['number'],
          additionalProperties: false,
        },
      },
      emails: {
        type: 'array',
        maxItems: 20,
        description: 'Email addresses.',
        items: {
          type: 'object',
          properties: { label, address: { type: 'string', format: 'email', maxLength: 254 } },
          required: ['address'],
          additionalProperties: false,
        },
      },
      channels: {
        type: 'array',
        maxItems: 20,
        description: 'Addresses of the contact on messaging channels.',
        items: {
          type: 'object',
          properties: {
            channel: {
              type: 'string',
              maxLength: 32,
              pattern: '^[a-z][a-z0-9_]{0,31}$',
              description: 'Channel name, e.g. `whatsapp`, `sms`, `webhook`.',
            },
            address: {
              type: 'string',
              minLength: 1,
              maxLength: 256,
              description: 'Address on that channel.',
            },
          },
          required: ['channel', 'address'],
          additionalProperties: false,
        },
      },
      attributes: {
        type: 'object',
        description: 'Custom attributes: string (at most 4096 characters), number, boolean or null values.',
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 4096 },
      },
      avatar: {
        'x-document': true,
        ...documentFieldSchema('Optional picture of the contact (a stored file).'),
      },
    },
    required: ['name'],
    additionalProperties: false,
  }),
);
export const CONTACTS_SCHEMA: JsonSchema = /* @__PURE__ */ contactsSchema();

export const MESSAGE_TYPES = ['text', 'image', 'audio', 'video', 'document'] as const;
export const MESSAGE_STATUSES = [
  'queued',
  'sent',
  'delivered',
  'read',
  'failed',
  'received',
  'scheduled',
  'canceled',
] as const;
export const MESSAGE_DIRECTIONS = ['outbound', 'inbound'] as const;

const messagesSchema = /* @__PURE__ */ lazy(
  (): JsonSchema => ({
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    description:
      'Record of a message sent with send_message or received from the channel (read-only; written by the ' +
      'platform).',
    properties: {
      contactId: { type: 'string', description: '`_id` of the contact.' },
      direction: {
        enum: [...MESSAGE_DIRECTIONS],
        description:
          '`outbound` (sent to the contact) or `inbound` (received from it); absent reads `outbound`.',
      },
      type: { enum: [...MESSAGE_TYPES], description: 'Message type.' },
      body: { type: 'object', description: 'The message body as sent.' },
      status: {
        enum: [...MESSAGE_STATUSES],
        description:
          'Outbound: `queued` then `sent` or `failed`, then as the sender reports `delivered`, `read` or ' +
          '`failed`; a message sent later is `scheduled` until its `sendAt` (then `queued`), or `canceled`. ' +
          'Inbound: `received`.',
      },
      attempts: { type: 'integer', minimum: 0, description: 'Delivery attempts made.' },
      error: { type: 'string', description: 'Why delivery failed (when `failed`).' },
      sentAt: {
        type: 'string',
        format: 'date-time',
        description: 'When the webhook accepted the message (when `sent`).',
      },
      deliveredAt: {
        type: 'string',
        format: 'date-time',
        description: 'When the sender reported it delivered.',
      },
      readAt: { type: 'string', format: 'date-time', description: 'When the sender reported it read.' },
      failedAt: { type: 'string', format: 'date-time', description: 'When the sender reported it failed.' },
      failureReason: { type: 'string', maxLength: 500, description: 'Why the sender reported it failed.' },
      receivedAt: {
        type: 'string',
        format: 'date-time',
        description: 'When an inbound message was received.',
      },
      sendAt: {
        type: 'string',
        format: 'date-time',
        description: 'When a message sent later is (or was) to be sent (UTC).',
      },
      canceledAt: {
        type: 'string',
        format: 'date-time',
        description: 'When a scheduled message was canceled (when `canceled`).',
      },
    },
    required: ['contactId', 'type', 'body', 'status'],
    additionalProperties: false,
  }),
);
export const MESSAGES_SCHEMA: JsonSchema = /* @__PURE__ */ messagesSchema();

const nullableString = { type: ['string', 'null'] };

const logEntriesSchema = /* @__PURE__ */ lazy(
  (): JsonSchema => ({
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    description:
      'One API request of the company (the audit trail; read-only). `_id` is `<epoch milliseconds, 15 ' +
      'digits>-<requestId>`: it sorts by `time` and names the request (`x-request-id`).',
    properties: {
      requestId: { type: 'string', description: 'API Gateway request id (`x-request-id`).' },
      time: { type: 'string', format: 'date-time', description: 'When the request was received (UTC).' },
      method: { type: 'string', description: 'HTTP method.' },
      path: { type: 'string', description: 'Request path.' },
      route: { ...nullableString, description: 'Matched route resource, or null.' },
      status: { type: 'integer', description: 'HTTP status answered.' },
      latencyMs: { type: ['integer', 'null'], description: 'Handling time in milliseconds.' },
      authMethod: { ...nullableString, description: '`api_key` or `jwt`.' },
      keyId: { ...nullableString, description: 'API key id or JWT id.' },
      sourceIp: { ...nullableString, description: 'Source IP as seen by the gateway.' },
      userAgent: { ...nullableString, description: 'User-Agent header.' },
    },
    required: ['requestId', 'time', 'method', 'path', 'status'],
    additionalProperties: false,
  }),
);

export interface BuiltinType {
  name: BuiltinTypeName;
  description: string;
  schema: JsonSchema;
  /** Whether the public API may create, update and delete items (log_entries: see the env switch). */
  writable: boolean;
  indexed: string[];
}

export const BUILTIN_TYPES: Record<BuiltinTypeName, BuiltinType> = {
  contacts: {
    name: 'contacts',
    description: 'People and organisations the company messages.',
    get schema() {
      return contactsSchema();
    },
    writable: true,
    indexed: [],
  },
  messages: {
    name: 'messages',
    description: 'Messages sent with send_message and their delivery status (read-only).',
    get schema() {
      return messagesSchema();
    },
    writable: false,
    indexed: [],
  },
  log_entries: {
    name: 'log_entries',
    description: 'Audit trail of the company’s API requests, newest first (read-only).',
    get schema() {
      return logEntriesSchema();
    },
    writable: false,
    indexed: [],
  },
};
