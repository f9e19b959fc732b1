import { getCompanyProfile } from '../../shared/domain/companies';
import { createApiHandler } from '../../shared/http/middleware';
import { COMPANY_ROUTES } from '../../shared/routes/company-routes';

export const handler = createApiHandler('company', COMPANY_ROUTES, {
  getSelf: async ({ auth }) => ({ body: { company: await getCompanyProfile(auth.companyId, new Date()) } }),
});
