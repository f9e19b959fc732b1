import { AppError } from '../errors';
import { logger } from '../observability/logger';
import { type ApiMiddleware, requestIdOf } from './api-request';
import { problemResponse } from './problem';

/** Last: every error becomes problem+json; 5xx are logged with the cause and answered generically. */
export const problemErrors = (): ApiMiddleware => ({
  onError: (request) => {
    const { error } = request;
    if (!(error instanceof AppError) || (error.status >= 500 && error.code !== 'not_implemented')) {
      logger.error('request failed', { error: error as Error });
    } else {
      logger.info('request refused', { code: error.code, status: error.status });
    }
    request.response = problemResponse(error, requestIdOf(request.event));
  },
});
