import { startLocalStack } from '../functions/local/stack';

// `npm start`: the local stack on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}.
// --allow-loopback-outbound: webhooks and workflow HTTP actions may reach receivers on this machine
//   (loopback), never the stack's own ports; without it they reach public addresses only, as on AWS.
// --exit-with-parent: stop when standard input closes (used by tests, so a crashed runner leaves nothing).
const stack = await startLocalStack({
  dataDir: process.env.DATA_DIR ?? '.data',
  port: Number(process.env.PORT ?? 3000),
  allowLoopbackOutbound: process.argv.includes('--allow-loopback-outbound'),
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
if (process.argv.includes('--exit-with-parent')) {
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.resume();
}
