import { listCatalogPlans } from '../../shared/domain/plans';
import { docsAsset, docsPage } from '../../shared/http/docs-page';
import { createApiHandler } from '../../shared/http/middleware';
import { buildOpenApiDocument } from '../../shared/http/openapi';
import { PUBLIC_GROUP_ROUTES } from '../../shared/routes/public-routes';
import { planSchema } from '../../shared/routes/schemas';

/**
 * Routes that need no credential: the plan catalog, the OpenAPI document and the interactive documentation
 * (its page and assets). None is metered.
 */
const openApiDocument = buildOpenApiDocument();

export const handler = createApiHandler('public', PUBLIC_GROUP_ROUTES, {
  listPublicPlans: async ({ query }) => {
    const plans = await listCatalogPlans({ sellableOnly: query.sellableOnly ?? false });
    // The catalog is public: its stored shape is checked on the way out, not assumed.
    return { body: { plans: plans.map((plan) => planSchema.parse(plan)) } };
  },
  getOpenApiDocument: async () => ({ body: openApiDocument }),
  getDocsPage: async () => docsPage(),
  getDocsAsset: async ({ params, headers }) => docsAsset(params.asset, headers['accept-encoding']),
});
