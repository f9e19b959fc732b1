import { createApiHandler } from '../../shared/http/middleware';
import * as messages from '../../shared/operations/messages';
import { CONTACT_ROUTES } from '../../shared/routes/contact-routes';
import { MESSAGE_ROUTES } from '../../shared/routes/message-routes';

// The contacts thread pages by message `_id`, so this group holds no list-cursor key (the dynadata group
// asserts it has one).
export const handler = createApiHandler('contacts', [...CONTACT_ROUTES, ...MESSAGE_ROUTES], messages);
