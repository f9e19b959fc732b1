import { createApiHandler } from '../../shared/http/middleware';
import * as usage from '../../shared/operations/usage';
import { USAGE_ROUTES } from '../../shared/routes/usage-routes';

export const handler = createApiHandler('usage', USAGE_ROUTES, usage);
