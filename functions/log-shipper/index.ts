import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsEvent } from 'aws-lambda';
import type { AccessLogRecord } from '../shared/http/access-log';
import { logger } from '../shared/logger';
import { createHandler } from '../shared/pipeline/handler';
import { shipAccessLogRecords } from './ship';

/**
 * CloudWatch Logs subscription on the API's access-log group: one invocation per delivered batch. The batch
 * is one gzipped payload, not a list of records Lambda could retry one by one (a subscription has no partial
 * batch response): a line that is not JSON is skipped, and a failed write fails the invocation, which
 * CloudWatch Logs delivers again.
 */
export const handler = createHandler(async (event: CloudWatchLogsEvent): Promise<void> => {
  const payload = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as {
    logEvents: { message: string }[];
  };
  const records: AccessLogRecord[] = [];
  for (const { message } of payload.logEvents) {
    try {
      records.push(JSON.parse(message) as AccessLogRecord);
    } catch {
      logger.warn('skipping an access-log line that is not JSON');
    }
  }
  const shipped = await shipAccessLogRecords(records);
  logger.info('shipped access-log records', { received: records.length, shipped });
});
