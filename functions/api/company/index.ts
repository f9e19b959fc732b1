import { getCompanyProfile } from '../../shared/domain/companies';
import { createApiHandler } from '../../shared/http/middleware';

export const handler = createApiHandler('company', {
  getSelf: async ({ auth }) => ({ body: { company: await getCompanyProfile(auth.companyId, new Date()) } }),
});
