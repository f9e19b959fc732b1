import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { tracer } from '../observability/tracer';
import type { ApiMiddleware } from './api-request';

/**
 * A handler subsegment per request (Powertools `captureLambdaHandler`). Responses are not copied into the
 * trace (they hold tenant data). A request refused with a 4xx problem is an answer, not a fault: its
 * subsegment is closed as a success; only what became a 5xx is recorded as the segment's error.
 */
export const traceRequest = (): ApiMiddleware => {
  const traced = captureLambdaHandler(tracer, { captureResponse: false });
  return {
    before: traced.before,
    after: traced.after,
    onError: async (request) => {
      const answered = (request.response?.statusCode ?? 500) < 500;
      await (answered ? traced.after : traced.onError)?.(request);
    },
  };
};
