import {
  endpointsOf,
  findEndpoint,
  registerEndpoint,
  removeEndpoint,
  toPublicEndpoint,
} from '../../shared/domain/events/endpoints';
import { eventPage, eventWithDeliveries, pingEndpoint } from '../../shared/domain/events/events';
import { createApiHandler } from '../../shared/http/middleware';
import { EVENT_ROUTES } from '../../shared/routes/event-routes';

export const handler = createApiHandler('events', EVENT_ROUTES, {
  createWebhookEndpoint: async ({ auth, body }) => ({
    body: await registerEndpoint(auth.companyId, body, new Date()),
  }),
  listWebhookEndpoints: async ({ auth, query }) => ({ body: await endpointsOf(auth.companyId, query) }),
  getWebhookEndpoint: async ({ auth, params }) => ({
    body: { endpoint: toPublicEndpoint(await findEndpoint(auth.companyId, params.id)) },
  }),
  deleteWebhookEndpoint: async ({ auth, params, headers }) => {
    await removeEndpoint(auth.companyId, params.id, headers['if-match']);
    return { body: { deleted: true } };
  },
  testWebhookEndpoint: async ({ auth, params }) => ({
    body: { event: await pingEndpoint(auth.companyId, params.id, new Date()) },
  }),
  listEvents: async ({ auth, query }) => ({ body: await eventPage(auth.companyId, query, new Date()) }),
  getEvent: async ({ auth, params }) => ({
    body: { event: await eventWithDeliveries(auth.companyId, params.id, new Date()) },
  }),
});
