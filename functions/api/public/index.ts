import { listCatalogPlans } from '../../shared/domain/plans';
import { createApiHandler } from '../../shared/http/middleware';
import { buildOpenApiDocument } from '../../shared/http/openapi';
import { planSchema } from '../../shared/routes/schemas';

/** Routes that need no credential: the plan catalog and the OpenAPI document. Neither is metered. */
const openApiDocument = buildOpenApiDocument();

export const handler = createApiHandler('public', {
  listPublicPlans: async ({ query }) => {
    const plans = await listCatalogPlans({ sellableOnly: query.sellableOnly === 'true' });
    // The catalog is public: its stored shape is checked on the way out, not assumed.
    return { body: { plans: plans.map((plan) => planSchema.parse(plan)) } };
  },
  getOpenApiDocument: async () => ({ body: openApiDocument }),
});
