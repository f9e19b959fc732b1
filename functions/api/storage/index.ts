import { createApiHandler } from '../../shared/http/middleware';

/** The storage routes are declared in the route table; until they are implemented each answers 501. */
export const handler = createApiHandler('storage', {});
