import { createApiHandler } from '../../shared/http/middleware';
import * as events from '../../shared/operations/events';
import { EVENT_ROUTES } from '../../shared/routes/event-routes';
import { WEBHOOK_ROUTES } from '../../shared/routes/webhook-routes';

export const handler = createApiHandler('events', [...WEBHOOK_ROUTES, ...EVENT_ROUTES], events);
