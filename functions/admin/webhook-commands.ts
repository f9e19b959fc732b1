import { UsageError } from './target';

/**
 * Operator commands of webhooks:
 *   webhooks resend-lanes [--page-size N] [--queue-url U]
 * sends again the deliveries the webhook lanes of the release before decision 0060 still hold (their queue
 * messages went with the standard queue that deploy deleted), each to its FIFO message group as the
 * dispatcher sends it, and removes the lanes (`data/retired-webhook-lanes.ts`).
 */
export const WEBHOOK_USAGE = `  webhooks resend-lanes [--page-size N] [--queue-url U]
                                        once after the deploy of decision 0060: sends the pending deliveries
                                        left in webhook lanes to their FIFO groups and removes the lanes
                                        (re-runnable; on AWS --queue-url is the jobs stack output
                                        WebhookDeliveryQueueUrl)`;

export interface WebhookCommandValues {
  table?: string;
  'queue-url'?: string;
  'page-size'?: string;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/** A delivery a lane named: the lane (company, endpoint, resource) and the event. */
interface NamedDelivery {
  companyId: string;
  endpointId: string;
  resourceId: string;
  eventId: string;
}

export interface ResendLanesReport {
  /** Lanes read and removed. */
  lanes: number;
  /** Index pages read. */
  pages: number;
  /** Deliveries sent to their group, in the order sent (with the round they were sent with). */
  sent: (NamedDelivery & { round: number })[];
  /** Deliveries not sent: ended (`delivered`, `failed`) or gone (expired with their event). */
  skipped: (NamedDelivery & { status: string })[];
  /** Lanes changed between their read and their removal (left listed: run the command again). */
  changed: { companyId: string; endpointId: string; resourceId: string }[];
}

const pageSizeOf = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE)
    throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return n;
};

/**
 * Pages `WHLANE#UNFINISHED`; per lane, sends each delivery it names that is still `pending` (`fast` first,
 * then the entries, oldest event first: the order the lane would have sent them) with `sendDelivery`, whose
 * de-duplication id makes a repeat harmless, then removes the lane (conditional on it being as read).
 */
const resendLanes = async (pageSize: number): Promise<ResendLanesReport> => {
  const { readRetiredLane, removeRetiredLane, retiredLanePage } = await import(
    '../shared/data/retired-webhook-lanes'
  );
  const { getDelivery } = await import('../shared/data/webhook-deliveries');
  const { sendDelivery } = await import('../shared/domain/events/delivery-queue');
  const report: ResendLanesReport = { lanes: 0, pages: 0, sent: [], skipped: [], changed: [] };
  let from: Record<string, unknown> | undefined;
  do {
    const page = await retiredLanePage(pageSize, from);
    report.pages += 1;
    for (const partition of page.partitions) {
      const lane = await readRetiredLane(partition);
      if (!lane) continue;
      const target = { companyId: lane.companyId, endpointId: lane.endpointId, resourceId: lane.resourceId };
      const named = [...new Set([...(lane.fast ? [lane.fast] : []), ...lane.entries])];
      for (const eventId of named) {
        const delivery = await getDelivery(lane.companyId, eventId, lane.endpointId);
        if (delivery?.status !== 'pending') {
          report.skipped.push({ ...target, eventId, status: delivery?.status ?? 'gone' });
          continue;
        }
        await sendDelivery({ ...target, eventId, round: delivery.round });
        report.sent.push({ ...target, eventId, round: delivery.round });
      }
      if ((await removeRetiredLane(lane)) === 'changed') report.changed.push(target);
      else report.lanes += 1;
    }
    from = page.next;
  } while (from);
  return report;
};

const line = (d: NamedDelivery) => `${d.companyId} ${d.endpointId} ${d.resourceId} ${d.eventId}`;

export const runWebhookCommand = async (
  key: string,
  values: WebhookCommandValues,
): Promise<{ json: unknown; text: string } | undefined> => {
  if (key !== 'webhooks resend-lanes') return undefined;
  const pageSize = pageSizeOf(values['page-size']);
  // On AWS the queue's URL comes from `--queue-url` (set by `selectTarget`); the local stack's file has it.
  if (values.table && !values['queue-url']?.trim())
    throw new UsageError(
      'on AWS webhooks resend-lanes needs --queue-url (the jobs stack output WebhookDeliveryQueueUrl)',
    );
  const report = await resendLanes(pageSize);
  const text = [
    ...report.sent.map((d) => `sent     ${line(d)}${d.round > 0 ? ` (round ${d.round})` : ''}`),
    ...report.skipped.map((d) => `skipped  ${line(d)} (${d.status})`),
    ...report.changed.map((l) => `changed  ${l.companyId} ${l.endpointId} ${l.resourceId}`),
    `webhooks resend-lanes: ${report.sent.length} deliveries sent, ${report.skipped.length} skipped (ended), ` +
      `${report.lanes} lanes removed in ${report.pages} pages` +
      (report.changed.length > 0 ? `; ${report.changed.length} lanes changed while read: run it again` : ''),
  ];
  return { json: report, text: text.join('\n') };
};
