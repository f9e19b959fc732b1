import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { withContext } from '../pipeline/handler';
import { powertoolsChain } from '../pipeline/powertools-chain';
import type { RouteDefinition } from '../routes/route-definition';
import { countRequests } from './count-requests';
import { refuseDeepWorkflowHops } from './hop-limit-guard';
import { meterApiRequests } from './meter-api-requests';
import { problemErrors } from './problem-errors';
import { requestCorrelation } from './request-correlation';
import { createRouter, type GroupHandlers } from './router';
import { traceRequest } from './trace-request';

/**
 * The one handler factory every route group uses: the Powertools chain every function runs
 * (`pipeline/powertools-chain.ts`, here with a trace that counts only 5xx as faults), then the HTTP
 * middlewares, one per file, around the group's router. `before` runs top to bottom, `after` and `onError`
 * bottom to top: the Lambda context and correlation keys come first and are reset last, the metrics buffer is
 * flushed once after the request was counted, and the error handler is last, so every middleware above it
 * sees its problem response.
 */
export const createApiHandler = <const Routes extends readonly RouteDefinition[]>(
  group: Routes[number]['group'],
  /** The group's own routes (its section of the route table): its bundle holds no other area's. */
  routes: Routes,
  handlers: GroupHandlers<Routes>,
) =>
  withContext(
    middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
      .use(powertoolsChain(traceRequest()))
      .use(requestCorrelation(routes))
      .use(countRequests(routes))
      .use(refuseDeepWorkflowHops())
      .use(meterApiRequests())
      .use(problemErrors())
      .handler(createRouter(group, routes, handlers)),
  );
