import type { RouteDefinition } from '../functions/shared/routes/route-table';

/**
 * Why each route of scope `public` takes no credential (cdk-nag AwsSolutions-APIG4 cites these). The spec
 * exempts exactly one endpoint from authentication, the plan catalogue; any other public route serves
 * documentation only: no tenant data, no company, nothing metered. A new public route states its reason here,
 * or synthesis stops.
 */
export const PUBLIC_ROUTE_REASONS: Record<string, string> = {
  listPublicPlans:
    'GET /v1/public/plans is the plan catalogue, the one endpoint the spec exempts from authentication; it ' +
    'resolves no company and its function may only query the PLAN partition.',
  getOpenApiDocument:
    'GET /v1/openapi.json is the published OpenAPI document that the interactive documentation shows; it is ' +
    'generated from the route table at build time and holds no tenant data, and its function may only query ' +
    'the PLAN partition. The spec requires authentication for its API operations; this is documentation.',
  getDocsPage:
    'GET /v1/docs is the interactive documentation page (Swagger UI over /v1/openapi.json): a static HTML ' +
    'page that holds no tenant data, built without any AWS call; its function may only query the PLAN partition.',
  getDocsAsset:
    'GET /v1/docs/assets/{asset} serves the Swagger UI files the documentation page loads, from a fixed list ' +
    'of files packaged with the function (any other name is 404); no tenant data, nothing metered.',
};

export const publicRouteReason = (
  route: Pick<RouteDefinition, 'method' | 'path' | 'operationId'>,
): string => {
  const reason = PUBLIC_ROUTE_REASONS[route.operationId];
  if (!reason) {
    throw new Error(
      `${route.method} ${route.path} is public: state why in PUBLIC_ROUTE_REASONS (lib/public-routes.ts)`,
    );
  }
  return reason;
};
