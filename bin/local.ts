import { startLocalStack } from '../functions/local/stack';
import { parseStartOptions } from '../functions/local/start-options';

// `npm start`: the local stack on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}.
// Options (`npm start -- <options>`; functions/local/start-options.ts):
// --allow-loopback-outbound: webhooks and workflow HTTP actions may reach receivers on this machine
//   (loopback), never the stack's own ports; without it they reach public addresses only, as on AWS.
// --exit-with-parent: stop when standard input closes (used by tests, so a crashed runner leaves nothing).
// --webhook-retry-base, --webhook-retry-cap, --webhook-retry-window, --webhook-disable-after <duration>:
//   webhook timing (1s, 5s, 10m and 2m by default; durations such as 30s, 5m, 2h).
// --schedule-every <duration>: every workflow schedule is due this often instead of by its expression.
// The stack stops on SIGINT and SIGTERM, and when the process that started it goes away (a supervisor that
// is killed, `npm` stopped without passing the signal on): nothing it started outlives it.
const options = parseStartOptions(process.argv.slice(2));
const stack = await startLocalStack({
  dataDir: process.env.DATA_DIR ?? '.data',
  port: Number(process.env.PORT ?? 3000),
  allowLoopbackOutbound: options.allowLoopbackOutbound,
  webhooks: options.webhooks,
  ...(options.scheduleEverySeconds ? { scheduleEveryMs: options.scheduleEverySeconds * 1000 } : {}),
  onRecovered: (counts) => {
    const done = Object.entries(counts)
      .map(([kind, c]) => [kind, Object.entries(c).filter(([, n]) => n > 0)] as const)
      .filter(([, c]) => c.length > 0);
    if (done.length > 0)
      process.stderr.write(
        `recovered unfinished work: ${done.map(([kind, c]) => `${kind} ${c.map(([o, n]) => `${n} ${o}`).join(', ')}`).join('; ')}\n`,
      );
  },
});
const { apiUrl, dataDir, outbound } = stack.description;
process.stderr.write(
  `local stack ready: ${apiUrl}/v1  (data: ${dataDir}, endpoints: ${dataDir}/stack.json)\n` +
    (outbound.allowLoopback
      ? `outbound requests may reach loopback, except the stack's own ports ${outbound.deniedLoopbackPorts.join(', ')}\n`
      : '') +
    (stack.demo.created
      ? `demo company ${stack.demo.companyId}, API key (shown once, also in ${dataDir}/demo-api-key):\n  ${stack.demo.apiKey}\n`
      : `demo company ${stack.demo.companyId}, API key in ${dataDir}/demo-api-key\n`),
);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: stopping local stack\n`);
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGHUP', () => void shutdown('SIGHUP'));
// Orphaned: the parent died without passing a signal on (the process is handed to another parent).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown('parent gone');
}, 500).unref();
if (options.exitWithParent) {
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.resume();
}
