import { createApiHandler } from '../../shared/http/middleware';
import * as events from '../../shared/operations/events';
import { CHANNEL_ROUTES } from '../../shared/routes/channel-routes';
import { EVENT_ROUTES } from '../../shared/routes/event-routes';
import { WEBHOOK_ROUTES } from '../../shared/routes/webhook-routes';

export const handler = createApiHandler(
  'events',
  [...WEBHOOK_ROUTES, ...EVENT_ROUTES, ...CHANNEL_ROUTES],
  events,
);
