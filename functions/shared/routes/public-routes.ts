import * as z from '../zod';
import { route } from './route-definition';
import { planSchema, queryBoolean } from './schemas';

/**
 * The routes of the public plan catalog, this document and the documentation page (group `public`): a section
 * of the route table (`route-table.ts` joins the sections into `ROUTES`), imported alone by the group's
 * function, so its bundle holds only its own routes.
 */
export const PUBLIC_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/public/plans',
    group: 'public',
    operationId: 'listPublicPlans',
    sdk: 'plans.list',
    summary: 'Public plan catalog',
    description: 'Needs no authentication and resolves no company. Not metered.',
    tag: 'Plans',
    scope: 'public',
    get query() {
      return z.object({
        sellableOnly: queryBoolean('When `true`, only plans currently on sale are returned.'),
      });
    },
    get response() {
      return z.object({ plans: z.array(planSchema()) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/openapi.json',
    group: 'public',
    operationId: 'getOpenApiDocument',
    sdk: 'openApi.get',
    summary: 'This OpenAPI 3.0 document',
    tag: 'Meta',
    scope: 'public',
    etag: true,
    get response() {
      return z.record(z.string(), z.unknown()).describe('OpenAPI 3.0 document.');
    },
  }),
] as const;

export const DOCS_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/docs',
    group: 'public',
    operationId: 'getDocsPage',
    sdk: null,
    summary: 'Interactive documentation of this API',
    description:
      'An HTML page (Swagger UI) rendered in the browser from GET /v1/openapi.json. Its script and styles are ' +
      'served by this API (GET /v1/docs/assets/{asset}); it requests nothing from any other host. Paste an API ' +
      'key under "Authorize" to try operations against this deployment. Not metered.',
    tag: 'Meta',
    scope: 'public',
    get response() {
      return z.string().describe('The HTML page.');
    },
    produces: ['text/html'],
  }),
  route({
    method: 'GET',
    path: '/v1/docs/assets/{asset}',
    group: 'public',
    operationId: 'getDocsAsset',
    sdk: null,
    summary: 'A script, style sheet or icon of the documentation page',
    description:
      'Names carry a content hash, so an asset is cached for a year (`immutable`); gzip-encoded when the ' +
      'client accepts it. An unknown name answers 404 `not_found`. Not metered.',
    tag: 'Meta',
    scope: 'public',
    get params() {
      return z.object({
        asset: z.string().min(1).max(128).describe('Asset file name, as the page links it.'),
      });
    },
    get response() {
      return z.string().describe('The asset.');
    },
    produces: ['text/javascript', 'text/css', 'image/png'],
    errors: ['not_found'],
  }),
] as const;

/** Every route of the public group. */
export const PUBLIC_GROUP_ROUTES = [...PUBLIC_ROUTES, ...DOCS_ROUTES] as const;
