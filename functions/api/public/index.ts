import { listPlans } from '../../shared/data/plans';
import { createApiHandler } from '../../shared/http/middleware';
import { buildOpenApiDocument } from '../../shared/http/openapi';
import { planSchema } from '../../shared/routes/schemas';

/** Routes that need no credential: the plan catalog and the OpenAPI document. Neither is metered. */
const openApiDocument = buildOpenApiDocument();

export const handler = createApiHandler('public', {
  listPublicPlans: async ({ query }) => {
    // The catalog is public: its stored shape is checked on the way out, not assumed.
    const plans = (await listPlans()).map((plan) => planSchema.parse(plan));
    const selected = query.sellableOnly === 'true' ? plans.filter((p) => p.sellable) : plans;
    return {
      body: { plans: selected.sort((a, b) => a.price.amount - b.price.amount || a.id.localeCompare(b.id)) },
    };
  },
  getOpenApiDocument: async () => ({ body: openApiDocument }),
});
