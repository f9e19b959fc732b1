import type { CloudWatchLogsEvent } from 'aws-lambda';
import { logger } from '../shared/observability/logger';
import { createHandler } from '../shared/pipeline/handler';
import { shipAccessLogRecords } from './ship';
import { accessLogRecordsOf } from './subscription-batch';

/**
 * CloudWatch Logs subscription on the API's access-log group: one asynchronous invocation per delivered
 * batch. The batch is one gzipped payload, not a list of records Lambda could retry one by one (a
 * subscription has no partial batch response): a line that is not JSON is skipped, and a failed write fails
 * the invocation, which Lambda retries; an invocation whose retries run out is parked, with its event, on the
 * shipper's failure queue, from which `admin log-shipper redrive` ships it again (`docs/operate.md`).
 */
export const handler = createHandler(async (event: CloudWatchLogsEvent): Promise<void> => {
  const { records, skipped } = accessLogRecordsOf(event);
  if (skipped > 0) logger.warn('skipping access-log lines that are not JSON', { skipped });
  const shipped = await shipAccessLogRecords(records);
  logger.info('shipped access-log records', { received: records.length, shipped });
});
