import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TranscodeJobRecord, TranscodeStatus } from '../../functions/shared/data/transcode-jobs';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/**
 * Events bench (`npm run bench -- events`, against the local stack it started):
 *  1. DynamoDB requests and transaction items of a transcode job's move to `done`, with its event and with
 *     the same lifecycle configured without events: the event rides in the move's transaction;
 *  2. events delivered per second through the local stack (table stream poller → dispatcher → Step
 *     Functions emulator → signed POST to a loopback receiver), for events of many resources (parallel
 *     lanes) and of one resource (one lane, in order).
 */
const LANES = Number(process.env.BENCH_EVENT_LANES ?? 200);
const ONE_LANE = Number(process.env.BENCH_EVENT_ONE_LANE ?? 100);

export const benchEvents = async (write: (line: string) => void) => {
  const { dynamodbClient } = await import('../../functions/shared/data/client');
  const label = new AsyncLocalStorage<string>();
  const counts = new Map<string, { requests: number; items: number }>();
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      const current = label.getStore();
      if (current) {
        const entry = counts.get(current) ?? { requests: 0, items: 0 };
        entry.requests += 1;
        const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
        entry.items += items ? items.length : 1;
        counts.set(current, entry);
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchEventCounter' },
  );
  const counted = <T>(name: string, fn: () => Promise<T>) => label.run(name, fn);

  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { transcodeStore } = await import('../../functions/shared/data/transcode-jobs');
  const { createJobLifecycle } = await import('../../functions/shared/data/jobs/lifecycle');
  const { putEvent } = await import('../../functions/shared/data/events');
  const { createEndpoint } = await import('../../functions/shared/data/webhook-endpoints');
  const { newWebhookSecret } = await import('../../functions/shared/domain/messages/webhooks');

  const now = new Date();
  const company = await createCompanyWithPlan({ name: 'Events bench', planId: 'legacy-pro' }, now);
  const companyId = company.companyId;

  // 1. The move to done, with and without its event.
  const { eventTypes: _events, ...withoutEventsConfig } = transcodeStore;
  const withoutEvents = createJobLifecycle<TranscodeStatus, TranscodeJobRecord>(withoutEventsConfig);
  const finalizing = async (jobId: string) => {
    const job = transcodeJobRecord({ jobId, companyId, status: 'finalizing' }, now);
    await transcodeJobs.lifecycle.createJob(job, 100);
    return job;
  };
  const output = { bucket: 'b', fullPath: `companies/${companyId}/o.wav`, size: 1, contentType: 'audio/wav' };
  const move = {
    done: 'done' as const,
    from: ['finalizing'] as const,
    change: { set: { output } },
    billedSeconds: 5,
    now,
  };
  const a = await finalizing('tc_bench_event');
  await counted('with event', () => transcodeJobs.lifecycle.complete({ ...move, job: a }));
  const b = await finalizing('tc_bench_plain');
  await counted('without event', () => withoutEvents.complete({ ...move, job: b }));
  const c = await finalizing('tc_bench_fail');
  await counted('fail (no record in hand)', () =>
    transcodeJobs.moves.fail({ job: c, error: { code: 'x', message: 'x' }, now }),
  );
  write('\n== Events: DynamoDB requests of a transcode job move (counted at the SDK client)\n');
  for (const [name, { requests, items }] of counts)
    write(
      `${`move to done ${name}`.padEnd(44)} ${String(requests).padStart(3)} requests, ${items} items written\n`,
    );
  const extra = (counts.get('with event')?.requests ?? 0) - (counts.get('without event')?.requests ?? 0);
  write(`extra round trips for the event of a move to done: ${extra}\n`);

  // 2. Delivery throughput through the local stack.
  const received = new Map<string, number>();
  let lastAt = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.set(String(req.headers['webhook-id']), Date.now());
      lastAt = Date.now();
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench`;
  await createEndpoint(
    {
      id: 'we_bench',
      companyId,
      url,
      events: ['*'],
      secret: newWebhookSecret(),
      status: 'enabled',
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    },
    10,
  );
  const run = async (name: string, count: number, resourceOf: (i: number) => string) => {
    const ids: string[] = [];
    const started = Date.now();
    for (let i = 0; i < count; i++) {
      const event = await putEvent({
        companyId,
        type: 'transcode.done',
        resourceId: resourceOf(i),
        data: { id: resourceOf(i), n: i },
        now: new Date(),
      });
      ids.push(event.id);
    }
    const deadline = Date.now() + 300_000;
    while (ids.some((id) => !received.has(id)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const delivered = ids.filter((id) => received.has(id)).length;
    const seconds = (lastAt - started) / 1000;
    const inOrder = ids.every(
      (id, i) => i === 0 || (received.get(id) ?? 0) >= (received.get(ids[i - 1] ?? '') ?? 0),
    );
    write(
      `${name.padEnd(44)} ${delivered}/${count} delivered in ${seconds.toFixed(1)} s: ${(delivered / seconds).toFixed(1)} events/s${name.includes('one') ? `, in order: ${inOrder}` : ''}\n`,
    );
  };
  write(
    '\n== Events: delivered per second through the local stack (stream → dispatcher → Step Functions → POST)\n',
  );
  await run(`${LANES} events of ${LANES} resources`, LANES, (i) => `tc_bench_${i}`);
  await run(`${ONE_LANE} events of one resource`, ONE_LANE, () => 'tc_bench_one');
  await new Promise<void>((r) => server.close(() => r()));
};
