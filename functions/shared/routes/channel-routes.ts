import { timestampField, urlField } from '../fields';
import { lazy } from '../lazy';
import * as z from '../zod';
import { rotateSecretBodySchema } from './event-schemas';
import { route } from './route-definition';
import { deletedAnswer } from './schemas';

/**
 * The routes of the company's message channel (group `events`, beside webhook endpoints: the channel is the
 * webhook messages are delivered to): a section of the route table. No MCP tool or workflow action offers
 * them: the signing secret would land in an agent's context or a run's history.
 */
const channelSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      url: z.string().describe('Where each message is POSTed, signed with Standard Webhooks headers.'),
      createdAt: timestampField(),
      updatedAt: timestampField(),
      previousSecretExpiresAt: timestampField()
        .nullable()
        .describe('Until when the secret before the last rotation signs too; null when it no longer does.'),
    })
    .describe("The company's message channel, without its signing secret."),
);

const channelAnswer = /* @__PURE__ */ lazy(() =>
  z.object({
    channel: channelSchema(),
    secret: z
      .string()
      .nullable()
      .describe(
        'The signing secret `whsec_<base64>`, shown only when the channel is created: store it. `null` when ' +
          'only the URL changed (the secret stays).',
      ),
  }),
);

export const CHANNEL_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/messaging/channel',
    group: 'events',
    operationId: 'getMessageChannel',
    sdk: 'messaging.channel.get',
    etag: true,
    summary: "The company's message channel",
    description:
      'Where messages are delivered. A company without one answers 404 `not_found`: its messages end ' +
      '`failed` until it sets one.',
    tag: 'Contacts',
    scope: 'webhooks:read',
    get response() {
      return z.object({ channel: channelSchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'PUT',
    path: '/v1/messaging/channel',
    group: 'events',
    operationId: 'putMessageChannel',
    sdk: 'messaging.channel.put',
    answersEtag: 'channel',
    ifMatch: true,
    summary: 'Set the message channel',
    description:
      'Sets the URL messages are delivered to (the URL rules of webhook endpoints: a refused URL answers 400 ' +
      '`validation_failed` at `/body/url`). The first time it answers 201 with the signing secret, once; ' +
      'later it answers 200 and keeps the secret (`secret: null`): rotate it with ' +
      '`POST /v1/messaging/channel/rotate-secret`, which also recovers a lost first answer. Honours If-Match ' +
      'with the ETag of GET; a change racing another answers 409 `conflict`.',
    tag: 'Contacts',
    scope: 'webhooks:write',
    get body() {
      return z.object({ url: urlField('An HTTPS URL on a public address.') }).strict();
    },
    get response() {
      return channelAnswer();
    },
    get alsoAnswers() {
      return [
        {
          status: 201,
          description: 'Created: the first channel, with its secret',
          response: channelAnswer(),
        },
      ];
    },
    errors: ['conflict'],
    examples: { request: { url: 'https://hooks.example.com/messages' } },
  }),
  route({
    method: 'DELETE',
    path: '/v1/messaging/channel',
    group: 'events',
    operationId: 'deleteMessageChannel',
    sdk: 'messaging.channel.delete',
    ifMatch: true,
    summary: 'Remove the message channel',
    description:
      'Messages sent from then on end `failed` until a channel is set again (with a new secret). Honours ' +
      'If-Match with the ETag of GET.',
    tag: 'Contacts',
    scope: 'webhooks:write',
    get response() {
      return deletedAnswer({});
    },
    errors: ['not_found', 'conflict'],
  }),
  route({
    method: 'POST',
    path: '/v1/messaging/channel/rotate-secret',
    group: 'events',
    operationId: 'rotateMessageChannelSecret',
    sdk: 'messaging.channel.rotateSecret',
    answersEtag: 'channel',
    summary: "Rotate the message channel's signing secret",
    description:
      'Answers a new signing secret, once (an idempotent replay answers `secret: null`). The previous secret ' +
      'keeps signing beside it for `overlapSeconds` (default one day, at most seven): during the overlap every ' +
      'delivery carries two signatures in `webhook-signature`, space-separated, as for webhook endpoints.',
    tag: 'Contacts',
    scope: 'webhooks:write',
    idempotency: 'keyed',
    shownOnce: ['secret'],
    get body() {
      return rotateSecretBodySchema();
    },
    get response() {
      return channelAnswer().extend({
        previousSecretExpiresAt: timestampField()
          .nullable()
          .describe('Until when the previous secret signs too; null with no overlap.'),
      });
    },
    errors: ['not_found', 'conflict'],
    examples: { request: { overlapSeconds: 3600 } },
  }),
] as const;
