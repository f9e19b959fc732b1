import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { localEnvironmentFromStackFile } from '../../functions/local/stack-file';
import { freePort, startStackProcess } from '../integration/local-stack-process';

/**
 * `npm run bench -- startup`: start-up time of the local stack (`bin/local.ts`, what `npm start` runs, to
 * "local stack ready") on a data directory with an empty table, then with 100,000 `log_entries` items
 * written directly (BatchWrite through the data module), in one run. Each figure is the best of
 * `RUNS` restarts, so a busy machine inflates it less. Start-up recovery reads only the sparse partitions of
 * unfinished work: the ratio stays near 1 whatever the table holds.
 *
 * The empty table is also started with a client that polls `GET /v1/public/plans` every `PROBE_EVERY_MS`
 * from before the first moment and an idle connection held open, as a supervisor's readiness probe would
 * (ten times more often than a probe once a second): the gateway's port answers 503 while the stack starts,
 * so start-up takes as long with a probe as without. Probed and unprobed restarts alternate, so a machine
 * that gets busier during the run weighs on both alike.
 *
 * Run as its own process (`run.ts` spawns it): it points the data modules at the stack it starts. The
 * stack is started as the integration tests start theirs (`startStackProcess`, polled every 100 ms).
 */
const RUNS = 2;
const PROBE_EVERY_MS = 100;
const ENTRIES = 100_000;
const COMPANIES = 20;
const PARALLEL_BATCHES = 8;

/** Polls the port every `PROBE_EVERY_MS` and holds one idle connection, until `stop`; counts the 503 answers. */
const probe = (port: number) => {
  let stopped = false;
  let starting = 0;
  const sockets: Socket[] = [];
  const polling = (async () => {
    while (!stopped) {
      const status = await fetch(`http://127.0.0.1:${port}/v1/public/plans`, {
        signal: AbortSignal.timeout(2_000),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      if (status === 503) starting += 1;
      if (sockets.length === 0 && status !== 0) sockets.push(connect(port, '127.0.0.1'));
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await polling;
      for (const socket of sockets) socket.destroy();
      return starting;
    },
  };
};

/**
 * CPU seconds the stack's own process has used (user and system, from `/proc`; clock ticks of 10 ms): on a
 * shared machine a steadier figure than wall time, which other work inflates.
 */
const cpuSecondsOf = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** Starts the stack as `npm start` runs it (with a probe polling it, if asked); answers how long it took to be ready. */
const startStack = async (
  dataDir: string,
  { probed = false } = {},
): Promise<{ ms: number; cpu: number; starting: number; stop: () => Promise<void> }> => {
  const port = probed ? await freePort() : 0;
  const client = probed ? probe(port) : undefined;
  const started = performance.now();
  const stack = await startStackProcess(dataDir, undefined, { port });
  const ms = performance.now() - started;
  const cpu = cpuSecondsOf(stack.child.pid);
  const starting = (await client?.stop()) ?? 0;
  return {
    ms,
    cpu,
    starting,
    stop: async () => {
      await stack.stop('SIGTERM');
    },
  };
};

/** The best start-up time of `RUNS` restarts on the data directory. */
const bestStartup = async (dataDir: string): Promise<number> => {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const stack = await startStack(dataDir);
    best = Math.min(best, stack.ms);
    await stack.stop();
  }
  return best;
};

/** The best of `RUNS` restarts without and with a probe, alternating; and the 503s the probes were answered. */
const bestStartupProbedOrNot = async (dataDir: string) => {
  const best = {
    plain: { ms: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY },
    probed: { ms: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY },
    starting: 0,
  };
  for (let i = 0; i < RUNS; i++) {
    for (const probed of [false, true]) {
      const stack = await startStack(dataDir, { probed });
      const kept = probed ? best.probed : best.plain;
      kept.ms = Math.min(kept.ms, stack.ms);
      kept.cpu = Math.min(kept.cpu, stack.cpu);
      best.starting += stack.starting;
      await stack.stop();
    }
  }
  return best;
};

/** Writes `ENTRIES` audit entries into the running stack's table, as the log shipper does. */
const writeAuditEntries = async (dataDir: string): Promise<number> => {
  Object.assign(process.env, localEnvironmentFromStackFile(dataDir));
  const { putLogEntries } = await import('../../functions/shared/data/log-entries');
  const started = performance.now();
  const base = Date.now() - 86_400_000;
  const entryAt = (i: number) => ({
    companyId: `co_${String(i % COMPANIES).padStart(26, '0')}`,
    timeEpochMs: base + i,
    expiresAt: Math.floor(base / 1000) + 90 * 86_400,
    entry: {
      requestId: `bench-${i}`,
      time: new Date(base + i).toISOString(),
      method: 'GET',
      path: '/v1/self',
      route: 'GET /v1/self',
      status: 200,
      latencyMs: 3,
      authMethod: 'api_key',
      keyId: 'key_bench',
      sourceIp: '127.0.0.1',
      userAgent: 'bench',
    },
  });
  const chunk = Math.ceil(ENTRIES / PARALLEL_BATCHES);
  await Promise.all(
    Array.from({ length: PARALLEL_BATCHES }, async (_, p) => {
      for (let i = p * chunk; i < Math.min(ENTRIES, (p + 1) * chunk); i += 500)
        await putLogEntries(
          Array.from({ length: Math.min(500, (p + 1) * chunk - i, ENTRIES - i) }, (_, k) => entryAt(i + k)),
        );
    }),
  );
  return performance.now() - started;
};

const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-bench-startup-'));
try {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`bin/local.ts to "local stack ready", best of ${RUNS} restarts`);
  // The first start creates the table and the demo company; what is measured are restarts.
  await (await startStack(dataDir)).stop();
  const { plain, probed, starting } = await bestStartupProbedOrNot(dataDir);
  const empty = plain.ms;
  out(
    `  empty table:                     ${(empty / 1000).toFixed(1)} s (stack process CPU ${plain.cpu.toFixed(1)} s)`,
  );
  out(
    `  empty table, probed every ${PROBE_EVERY_MS} ms from the start: ${(probed.ms / 1000).toFixed(1)} s ` +
      `(CPU ${probed.cpu.toFixed(1)} s; ratios: time ${(probed.ms / empty).toFixed(2)}x, CPU ` +
      `${(probed.cpu / plain.cpu).toFixed(2)}x; ${starting} answers 503 while starting)`,
  );
  const writer = await startStack(dataDir);
  const writeMs = await writeAuditEntries(dataDir);
  await writer.stop();
  out(`  (${ENTRIES.toLocaleString('en')} log_entries written in ${(writeMs / 1000).toFixed(0)} s)`);
  const full = await bestStartup(dataDir);
  out(`  with ${ENTRIES.toLocaleString('en')} log_entries:       ${(full / 1000).toFixed(1)} s`);
  out(`  ratio:                           ${(full / empty).toFixed(2)}x`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
