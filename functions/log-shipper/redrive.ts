import type { CloudWatchLogsEvent } from 'aws-lambda';
import type { AccessLogRecord } from '../shared/http/access-log';
import { accessLogRecordsOf } from './subscription-batch';

/** A message of the shipper's failure queue, as received. */
export interface ParkedMessage {
  id: string;
  body: string;
  receiptHandle: string;
}

/** The failure queue, as the redrive uses it. */
export interface ParkedQueue {
  /** Up to `max` messages (at most 10), hidden from other receivers while they are redriven; none when empty. */
  receive(max: number): Promise<ParkedMessage[]>;
  /** Removes a message once its batch is shipped. */
  remove(receiptHandle: string): Promise<void>;
}

/**
 * The event of a failed invocation, from the record Lambda sends to an on-failure destination (`version`,
 * `timestamp`, `requestContext` with the `condition` and `approximateInvokeCount`, `requestPayload`: the
 * invocation's event, `responsePayload`: its error). Throws on a body that is not such a record of a
 * CloudWatch Logs subscription delivery.
 */
export const subscriptionEventOf = (body: string): CloudWatchLogsEvent => {
  const record = JSON.parse(body) as { requestPayload?: { awslogs?: { data?: unknown } } } | null;
  const data = record?.requestPayload?.awslogs?.data;
  if (typeof data !== 'string')
    throw new Error('not a failed invocation of the log shipper (no requestPayload.awslogs.data)');
  return { awslogs: { data } };
};

export interface RedriveReport {
  /** Messages received from the queue. */
  messages: number;
  /** Messages whose batch was shipped, then removed from the queue. */
  redriven: number;
  /** Access-log records in the redriven batches, and the `log_entries` written for them. */
  records: number;
  shipped: number;
  /** Lines of the redriven batches that were not JSON (skipped, as the shipper skips them). */
  skipped: number;
  /** Messages left on the queue: their batch could not be read or shipped. */
  failed: { messageId: string; error: string }[];
}

/**
 * Ships the batches of failed invocations parked on the failure queue with the shipper's own code, one
 * message at a time: a message is removed only after its batch is shipped, and a message that fails stays on
 * the queue (visible again once its visibility timeout ends). Stops when a receive finds nothing or after
 * `limit` messages.
 */
export const redriveParkedBatches = async (
  queue: ParkedQueue,
  ship: (records: AccessLogRecord[]) => Promise<number>,
  limit = 1000,
): Promise<RedriveReport> => {
  const report: RedriveReport = { messages: 0, redriven: 0, records: 0, shipped: 0, skipped: 0, failed: [] };
  while (report.messages < limit) {
    const messages = await queue.receive(Math.min(10, limit - report.messages));
    if (messages.length === 0) break;
    for (const message of messages) {
      report.messages += 1;
      try {
        const { records, skipped } = accessLogRecordsOf(subscriptionEventOf(message.body));
        const shipped = await ship(records);
        await queue.remove(message.receiptHandle);
        report.redriven += 1;
        report.records += records.length;
        report.shipped += shipped;
        report.skipped += skipped;
      } catch (error) {
        report.failed.push({
          messageId: message.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
  return report;
};
