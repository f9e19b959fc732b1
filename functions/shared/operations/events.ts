import {
  changeEndpointSettings,
  endpointsOf,
  findEndpoint,
  registerEndpoint,
  removeEndpoint,
  rotateEndpointSecret,
  toPublicEndpoint,
} from '../domain/events/endpoints';
import {
  endpointDeliveryPage,
  eventPage,
  eventWithDeliveries,
  pingEndpoint,
  redeliverEvent as redeliver,
} from '../domain/events/events';
import {
  messageChannelOf,
  removeMessageChannel,
  rotateMessageChannelSecret as rotateChannelSecret,
  setMessageChannel,
} from '../domain/messages/channel';
import type { RouteHandler } from '../http/router';
import { DEFAULT_SECRET_OVERLAP_SECONDS } from '../types/events';

/** What each operation of events, webhook endpoints and the message channel does: the group's routes and tools. */
export const createWebhookEndpoint: RouteHandler<'createWebhookEndpoint'> = async ({ auth, body, now }) => ({
  body: await registerEndpoint(auth.companyId, body, now),
});
export const listWebhookEndpoints: RouteHandler<'listWebhookEndpoints'> = async ({ auth, query }) => ({
  body: await endpointsOf(auth.companyId, query),
});
export const getWebhookEndpoint: RouteHandler<'getWebhookEndpoint'> = async ({ auth, params }) => ({
  body: { endpoint: toPublicEndpoint(await findEndpoint(auth.companyId, params.id)) },
});
export const deleteWebhookEndpoint: RouteHandler<'deleteWebhookEndpoint'> = async ({
  auth,
  params,
  headers,
}) => {
  await removeEndpoint(auth.companyId, params.id, headers['if-match']);
  return { body: { deleted: true, id: params.id } };
};
export const testWebhookEndpoint: RouteHandler<'testWebhookEndpoint'> = async ({ auth, params, now }) => ({
  body: { event: await pingEndpoint(auth.companyId, params.id, now) },
});
export const updateWebhookEndpoint: RouteHandler<'updateWebhookEndpoint'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => ({
  body: await changeEndpointSettings(auth.companyId, params.id, body, now, headers['if-match']),
});
export const rotateWebhookSecret: RouteHandler<'rotateWebhookSecret'> = async ({
  auth,
  params,
  body,
  now,
}) => ({
  body: await rotateEndpointSecret(
    auth.companyId,
    params.id,
    body.overlapSeconds ?? DEFAULT_SECRET_OVERLAP_SECONDS,
    now,
  ),
});
export const listWebhookDeliveries: RouteHandler<'listWebhookDeliveries'> = async ({
  auth,
  params,
  query,
}) => ({
  body: await endpointDeliveryPage(auth.companyId, params.id, query),
});
export const redeliverEvent: RouteHandler<'redeliverEvent'> = async ({ auth, params, body, now }) => ({
  body: { event: await redeliver(auth.companyId, params.id, body.endpointId, now) },
});
export const listEvents: RouteHandler<'listEvents'> = async ({ auth, query, now }) => ({
  body: await eventPage(auth.companyId, query, now),
});
export const getEvent: RouteHandler<'getEvent'> = async ({ auth, params, now }) => ({
  body: { event: await eventWithDeliveries(auth.companyId, params.id, now) },
});

export const getMessageChannel: RouteHandler<'getMessageChannel'> = async ({ auth }) => ({
  body: await messageChannelOf(auth.companyId),
});
export const putMessageChannel: RouteHandler<'putMessageChannel'> = async ({ auth, body, headers, now }) => {
  const { created, ...answer } = await setMessageChannel(auth.companyId, body.url, now, headers['if-match']);
  return { status: created ? 201 : 200, body: answer };
};
export const deleteMessageChannel: RouteHandler<'deleteMessageChannel'> = async ({ auth, headers }) => {
  await removeMessageChannel(auth.companyId, headers['if-match']);
  return { body: { deleted: true } };
};
export const rotateMessageChannelSecret: RouteHandler<'rotateMessageChannelSecret'> = async ({
  auth,
  body,
  now,
}) => ({
  body: await rotateChannelSecret(auth.companyId, body.overlapSeconds ?? DEFAULT_SECRET_OVERLAP_SECONDS, now),
});
