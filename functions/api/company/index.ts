import { createApiHandler } from '../../shared/http/middleware';
import * as company from '../../shared/operations/company';
import { COMPANY_ROUTES } from '../../shared/routes/company-routes';
import { KEY_ROUTES } from '../../shared/routes/key-routes';

export const handler = createApiHandler('company', [...COMPANY_ROUTES, ...KEY_ROUTES], company);
