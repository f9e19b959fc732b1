import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger for every function; correlation keys are appended per request. */
export const logger = new Logger({ serviceName: 'public-api-v1' });
