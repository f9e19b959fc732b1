import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsEvent } from 'aws-lambda';
import type { AccessLogRecord } from '../shared/http/access-log';

/**
 * The access-log records of one CloudWatch Logs subscription delivery: a gzipped JSON payload whose
 * `logEvents` each carry one line of the stage's access log. A line that is not JSON (a control message's
 * text, a truncated line) is counted in `skipped`, never shipped.
 */
export const accessLogRecordsOf = (
  event: CloudWatchLogsEvent,
): { records: AccessLogRecord[]; skipped: number } => {
  const payload = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as {
    logEvents?: { message: string }[];
  };
  const records: AccessLogRecord[] = [];
  let skipped = 0;
  for (const { message } of payload.logEvents ?? []) {
    try {
      records.push(JSON.parse(message) as AccessLogRecord);
    } catch {
      skipped += 1;
    }
  }
  return { records, skipped };
};
