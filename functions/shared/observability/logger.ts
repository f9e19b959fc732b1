import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './metric-names';

/**
 * The structured JSON logger of every function (Powertools). Logs carry the correlation keys of the unit of
 * work (`requestId`, `companyId`, `route` on a request; `companyId`, `jobId` or `messageId` in a worker),
 * appended per invocation and reset after it by the middy chain (`pipeline/powertools-chain.ts`), which also
 * injects the Lambda context. This instance is the only one: how it is made is decided here alone. Its level
 * is Lambda's (`AWS_LAMBDA_LOG_LEVEL`, set from `APPLICATION_LOG_LEVEL` in `lib/constructs/app-function.ts`,
 * which Powertools takes before any other); INFO, Powertools' default, where Lambda sets none (the local stack).
 */
export const logger = new Logger({ serviceName: SERVICE_NAME });
