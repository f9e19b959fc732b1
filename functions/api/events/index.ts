import { createApiHandler } from '../../shared/http/middleware';
import * as events from '../../shared/operations/events';
import { EVENT_ROUTES } from '../../shared/routes/event-routes';

export const handler = createApiHandler('events', EVENT_ROUTES, events);
