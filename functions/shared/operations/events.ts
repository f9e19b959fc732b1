import {
  endpointsOf,
  findEndpoint,
  registerEndpoint,
  removeEndpoint,
  toPublicEndpoint,
} from '../domain/events/endpoints';
import { eventPage, eventWithDeliveries, pingEndpoint } from '../domain/events/events';
import type { RouteHandler } from '../http/router';

/** What each operation of events and webhook endpoints does: the group's routes and its MCP tools. */
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
  return { body: { deleted: true } };
};
export const testWebhookEndpoint: RouteHandler<'testWebhookEndpoint'> = async ({ auth, params, now }) => ({
  body: { event: await pingEndpoint(auth.companyId, params.id, now) },
});
export const listEvents: RouteHandler<'listEvents'> = async ({ auth, query, now }) => ({
  body: await eventPage(auth.companyId, query, now),
});
export const getEvent: RouteHandler<'getEvent'> = async ({ auth, params, now }) => ({
  body: { event: await eventWithDeliveries(auth.companyId, params.id, now) },
});
