import { UsageError } from './target';

/**
 * Operator commands of the log shipper (AWS only: the local stack ships in process and parks nothing):
 *   log-shipper redrive --queue-url U [--max N]   ships the batches parked on the shipper's failure queue
 */
export const LOG_SHIPPER_USAGE = `  log-shipper redrive --queue-url U [--max N]   AWS: ship again the access-log batches of failed shipper
                                        invocations (the API stack output LogShipperFailureQueueUrl); with --table`;

export interface LogShipperCommandValues {
  table?: string;
  'queue-url'?: string;
  max?: string;
}

/** How long a received message stays hidden: more than enough to ship one batch (the shipper's timeout is 60 s). */
const VISIBILITY_SECONDS = 300;

export const runLogShipperCommand = async (
  key: string,
  values: LogShipperCommandValues,
): Promise<{ json: unknown; text: string } | undefined> => {
  if (key !== 'log-shipper redrive') return undefined;
  const queueUrl = values['queue-url']?.trim();
  if (!queueUrl)
    throw new UsageError('--queue-url (the API stack output LogShipperFailureQueueUrl) is required');
  if (!values.table)
    throw new UsageError('log-shipper redrive acts on AWS only: pass --table and --region with --queue-url');
  const limit = values.max === undefined ? 1000 : Number(values.max);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError('--max must be a whole number of messages, at least 1');

  const { deleteMessage, receiveMessages } = await import('../shared/aws/queue-messages');
  const { shipAccessLogRecords } = await import('../log-shipper/ship');
  const { redriveParkedBatches } = await import('../log-shipper/redrive');
  const report = await redriveParkedBatches(
    {
      receive: (max) => receiveMessages(queueUrl, max, VISIBILITY_SECONDS),
      remove: (receiptHandle) => deleteMessage(queueUrl, receiptHandle),
    },
    (records) => shipAccessLogRecords(records),
    limit,
  );
  const summary =
    `redrove ${report.redriven} of ${report.messages} parked batches: ${report.records} access-log records, ` +
    `${report.shipped} log entries written, ${report.skipped} lines that are not JSON skipped`;
  if (report.failed.length > 0) {
    const failures = report.failed.map((f) => `  ${f.messageId}: ${f.error}`).join('\n');
    throw new Error(
      `${summary}; ${report.failed.length} stay on the queue (visible again in ${VISIBILITY_SECONDS / 60} minutes):\n${failures}`,
    );
  }
  return { json: report, text: summary };
};
