import { createApiHandler } from '../../shared/http/middleware';
import * as messages from '../../shared/operations/messages';
import { CONTACT_ROUTES } from '../../shared/routes/contact-routes';

// No route of this group lists, so it holds no list-cursor key (the dynadata group asserts it has one).
export const handler = createApiHandler('contacts', CONTACT_ROUTES, messages);
