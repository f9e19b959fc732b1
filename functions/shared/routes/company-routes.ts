import * as z from '../zod';
import { route } from './route-definition';
import { companySchema } from './schemas';

/**
 * The routes of the company's profile (group `company`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const COMPANY_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/self',
    group: 'company',
    operationId: 'getSelf',
    sdk: 'self.get',
    summary: "The authenticated company's profile",
    tag: 'Company',
    scope: 'company:read',
    get response() {
      return z.object({ company: companySchema() });
    },
    errors: ['not_found'],
  }),
] as const;
