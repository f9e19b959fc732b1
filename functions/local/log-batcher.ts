import type { AccessLogRecord } from '../shared/http/access-log';

/**
 * Feeds the log shipper as the CloudWatch Logs subscription does on AWS: records are collected off the
 * request path and delivered in batches (every `intervalMs`, or sooner when `maxBatch` are waiting).
 */
export const createLogBatcher = (
  ship: (records: AccessLogRecord[]) => Promise<unknown>,
  onError: (error: unknown) => void,
  intervalMs = 250,
  maxBatch = 100,
) => {
  let pending: AccessLogRecord[] = [];
  let running: Promise<void> = Promise.resolve();
  const flush = () => {
    if (pending.length === 0) return running;
    const batch = pending;
    pending = [];
    running = running.then(() => ship(batch).then(() => undefined, onError));
    return running;
  };
  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  return {
    add: (record: AccessLogRecord) => {
      pending.push(record);
      if (pending.length >= maxBatch) void flush();
    },
    /** Delivers what is left and stops the timer. */
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
};
