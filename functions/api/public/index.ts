import { listCatalogPlans } from '../../shared/domain/plans';
import { codedRepresentation } from '../../shared/http/content-coding';
import { createApiHandler } from '../../shared/http/middleware';
import { lazy } from '../../shared/lazy';
import { PUBLIC_GROUP_ROUTES } from '../../shared/routes/public-routes';
import { planSchema } from '../../shared/routes/schemas';

/**
 * Routes that need no credential: the plan catalog, the OpenAPI document and the interactive documentation
 * (its page and assets). None is metered.
 *
 * The document is generated from the whole route table, every area's schemas included, and the page reads
 * package files: both are loaded on their route's first request (`import()`), and the document is built once
 * then (with its ETag, and each content coding on its first request: `http/content-coding.ts`), so a cold
 * start of the group builds neither. The document's generator is a lazy module built beside
 * the bundle (`#lazy/openapi`, with every area's routes and zod of its own), so the bundle does not even
 * compile it. The plan catalog's schema is built on its first use.
 */
const openApiDocument = /* @__PURE__ */ lazy(async () =>
  codedRepresentation(JSON.stringify((await import('#lazy/openapi')).buildOpenApiDocument()), {
    'content-type': 'application/json',
  }),
);
const docsPageModule = /* @__PURE__ */ lazy(() => import('../../shared/http/docs-page'));

export const handler = createApiHandler('public', PUBLIC_GROUP_ROUTES, {
  listPublicPlans: async ({ query }) => {
    const plans = await listCatalogPlans({ sellableOnly: query.sellableOnly ?? false });
    // The catalog is public: its stored shape is checked on the way out, not assumed.
    return { body: { plans: plans.map((plan) => planSchema().parse(plan)) } };
  },
  getOpenApiDocument: async ({ headers }) => (await openApiDocument())(headers['accept-encoding']),
  getDocsPage: async () => (await docsPageModule()).docsPage(),
  getDocsAsset: async ({ params, headers }) =>
    (await docsPageModule()).docsAsset(params.asset, headers['accept-encoding']),
});
