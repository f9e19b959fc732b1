import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';

/**
 * Media transforms bench (part of `npm run bench`, against the local stack it started):
 *  1. for a 60-second audio source and each preset, enqueue-to-`done` wall time through the local stack
 *     (HTTP enqueue, Step Functions emulator, workers, ffmpeg, S3, polling GET every 20 ms) against the same
 *     ffmpeg command run directly on a local file, as a ratio (median of RUNS runs, each on new content so
 *     nothing is reused);
 *  2. DynamoDB requests per enqueue (the route handler in-process, including the api_requests meter) and per
 *     state transition and worker step, counted at the SDK client for exactly that call.
 */
const RUNS = Number(process.env.BENCH_TRANSCODE_RUNS ?? 3);
const SOURCE_SECONDS = 60;
const FFMPEG = '/usr/bin/ffmpeg';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export const benchTranscodes = async (apiUrl: string, write: (line: string) => void) => {
  const { dynamodbClient } = await import('../../functions/shared/data/client');
  const label = new AsyncLocalStorage<string>();
  const counts = new Map<string, number>();
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      const current = label.getStore();
      if (current) counts.set(current, (counts.get(current) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchTranscodeCounter' },
  );
  const counted = async <T>(name: string, fn: () => Promise<T>): Promise<T> => label.run(name, fn);

  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  const { env } = await import('../../functions/shared/env');
  const presets = await import('../../functions/shared/domain/transcode-presets');
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { createTranscodeWorker } = await import('../../functions/workers/transcode/worker');
  const { probeWithFfprobe } = await import('../../functions/local/media-engine');
  const { ffmpegArguments } = await import('../../functions/shared/domain/ffmpeg-arguments');
  const transcodes = (await import('../../functions/api/transcodes/index')).handler;
  const authorizer = (await import('../../functions/authorizer/index')).handler;

  const now = () => new Date();
  const company = await createCompanyWithPlan({ name: 'Transcode bench', planId: 'legacy-pro' }, now());
  const companyId = company.companyId;
  const apiKey = (await createApiKey(companyId, { name: 'bench', scopes: [...SCOPES] }, now())).key;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const bucket = env().bucketName;
  const dir = mkdtempSync(join(tmpdir(), 'bench-transcode-'));

  let frequency = 300;
  /** A new 60-second source (a new tone each time, so no run reuses another's output). */
  const newSource = async () => {
    frequency += 7;
    const file = join(dir, `tone-${frequency}.wav`);
    execFileSync(FFMPEG, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
      ...['-i', `sine=frequency=${frequency}:sample_rate=44100:duration=${SOURCE_SECONDS}`, '-ac', '2', file],
    ]);
    const fullPath = `companies/${companyId}/bench/tone-${frequency}.wav`;
    const { size, etag } = await uploadFile(bucket, fullPath, file, 'audio/wav');
    await recordStoredObject(
      companyId,
      { bucket, fullPath, size, etag, contentType: 'audio/wav', createdAt: now().toISOString() },
      now(),
    );
    return { file, fullPath };
  };

  const viaStack = async (fullPath: string, preset: string) => {
    const started = performance.now();
    const res = await fetch(`${apiUrl}/v1/transcodes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ fullPath, preset }),
    });
    const { job } = (await res.json()) as { job: { id: string } };
    for (;;) {
      const got = (await fetch(`${apiUrl}/v1/transcodes/${job.id}`, { headers }).then((r) => r.json())) as {
        job: { status: string };
      };
      if (got.job.status === 'done') return performance.now() - started;
      if (got.job.status === 'failed' || got.job.status === 'canceled')
        throw new Error(`bench job ${job.id} ${got.job.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const direct = (file: string, preset: (typeof presets.TRANSCODE_PRESETS)[number]) => {
    const out = join(dir, `direct.${presets.presetExtension(preset)}`);
    const started = performance.now();
    execFileSync(FFMPEG, ffmpegArguments(preset, false, file, out), { stdio: 'ignore' });
    return performance.now() - started;
  };

  try {
    write(
      `\n== Media transforms: ${SOURCE_SECONDS}-second audio source, median of ${RUNS} runs per preset\n`,
    );
    write(
      `${'preset'.padEnd(16)} ${'local stack ms'.padStart(15)} ${'ffmpeg ms'.padStart(10)} ${'ratio'.padStart(7)}\n`,
    );
    await viaStack((await newSource()).fullPath, 'wav'); // warm-up: module loading, first execution
    for (const preset of presets.TRANSCODE_PRESETS) {
      const stackMs: number[] = [];
      const directMs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const source = await newSource();
        directMs.push(direct(source.file, preset));
        stackMs.push(await viaStack(source.fullPath, preset));
      }
      const s = median(stackMs);
      const d = median(directMs);
      write(
        `${preset.padEnd(16)} ${s.toFixed(0).padStart(15)} ${d.toFixed(0).padStart(10)} ${(s / d).toFixed(2).padStart(7)}\n`,
      );
    }

    // DynamoDB requests: the enqueue route in-process, then each transition and worker step on its own.
    const source = await newSource();
    const auth = await authorizer({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/v1/POST/transcodes',
      headers: { 'x-api-key': apiKey },
      requestContext: { requestId: 'bench', identity: { sourceIp: '127.0.0.1' } },
    } as unknown as APIGatewayRequestAuthorizerEvent);
    const proxy = (method: string, resource: string, path: string, body?: unknown, id?: string) =>
      ({
        resource,
        path,
        httpMethod: method,
        headers: { 'content-type': 'application/json' },
        queryStringParameters: null,
        pathParameters: id ? { id } : null,
        body: body === undefined ? null : JSON.stringify(body),
        isBase64Encoded: false,
        requestContext: { requestId: 'bench', authorizer: auth.context },
      }) as unknown as APIGatewayProxyEvent;
    const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;
    const enqueue = () =>
      transcodes(
        proxy('POST', '/transcodes', '/transcodes', { fullPath: source.fullPath, preset: 'flac_16k_mono' }),
        context,
      );
    await counted('warm', enqueue); // plan cache and clients warm, as on a warm Lambda
    const enqueued = JSON.parse((await counted('enqueue', enqueue)).body) as { job: { id: string } };
    await counted('get', () =>
      transcodes(
        proxy('GET', '/transcodes/{id}', `/transcodes/${enqueued.job.id}`, undefined, enqueued.job.id),
        context,
      ),
    );
    await counted('cancel', () =>
      transcodes(
        proxy(
          'POST',
          '/transcodes/{id}/cancel',
          `/transcodes/${enqueued.job.id}/cancel`,
          undefined,
          enqueued.job.id,
        ),
        context,
      ),
    );
    // Transitions of the job module, on a job no execution runs.
    const job = {
      jobId: `tc_bench${Date.now()}`,
      companyId,
      status: 'pending' as const,
      preset: 'wav' as const,
      source: { bucket, fullPath: source.fullPath, size: 1, etag: `bench-${Date.now()}` },
      attempt: 1,
      reused: false,
      billedSeconds: 0,
      createdAt: now().toISOString(),
      updatedAt: now().toISOString(),
      attemptStartedAt: now().toISOString(),
    };
    const lease = new Date(Date.now() + 60_000);
    const id = job.jobId;
    const { lifecycle, moves } = transcodeJobs;
    await counted('create (pending)', () => lifecycle.createJob(job, 1000));
    const ref = { companyId, jobId: id, attempt: 1 };
    await counted('pending → probing', () =>
      moves.advance({ job: ref, from: ['pending'], to: 'probing', leaseUntil: lease, now: now() }),
    );
    await counted('probing → transcoding', () =>
      moves.advance({
        job: ref,
        from: ['probing'],
        to: 'transcoding',
        leaseUntil: lease,
        set: { durationSeconds: 60, hasVideo: false },
        now: now(),
      }),
    );
    await counted('progress', () =>
      moves.progress({ job: ref, phase: 'transcoding', percent: 50, now: now() }),
    );
    await counted('transcoding → finalizing', () =>
      moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', leaseUntil: lease, now: now() }),
    );
    const output = { bucket, fullPath: source.fullPath, size: 1, contentType: 'audio/wav' };
    await counted('finalizing → done (+ meter)', () =>
      moves.complete({ job: ref, from: ['finalizing'], set: { output }, billedUnits: 60, now: now() }),
    );
    const second = { ...job, jobId: `${id}b` };
    await counted('create (pending) ', () => lifecycle.createJob(second, 1000));
    await counted('pending → failed', () =>
      moves.fail({ job: second, error: { code: 'internal', message: 'bench' }, now: now() }),
    );
    const retried = await counted('failed → pending (retry)', () => moves.retry(second, 1000, now()));
    await counted('pending → canceled', () => moves.cancel(retried, now()));
    // Worker steps in-process on a real source (probe includes S3 and ffprobe; finalize records the output).
    const worker = createTranscodeWorker({ probe: probeWithFfprobe });
    const stepJob = { ...job, jobId: `${id}c`, source: { ...job.source, etag: `bench-c-${Date.now()}` } };
    await transcodeJobs.lifecycle.createJob(stepJob, 1000);
    const probed = (await counted('worker probe step', () =>
      worker({ action: 'probe', companyId, jobId: stepJob.jobId, attempt: 1 }),
    )) as { output: { bucket: string; fullPath: string; contentType: string } };
    await uploadFile(probed.output.bucket, probed.output.fullPath, source.file, 'audio/wav');
    await counted('worker finalize step', () =>
      worker({
        action: 'finalize',
        companyId,
        jobId: stepJob.jobId,
        attempt: 1,
        durationSeconds: 60,
        output: probed.output,
      }),
    );

    write('\n== DynamoDB requests per transcode operation (counted at the SDK client)\n');
    const rows: [string, string][] = [
      ['POST /v1/transcodes handler (warm; incl. api_requests meter)', 'enqueue'],
      ['GET /v1/transcodes/{id} handler (incl. meter)', 'get'],
      ['POST /v1/transcodes/{id}/cancel handler (incl. meter)', 'cancel'],
      ['create job + queue slot (transaction)', 'create (pending)'],
      ['pending → probing', 'pending → probing'],
      ['probing → transcoding', 'probing → transcoding'],
      ['progress while transcoding', 'progress'],
      ['transcoding → finalizing', 'transcoding → finalizing'],
      ['finalizing → done + slot + meter (transaction)', 'finalizing → done (+ meter)'],
      ['pending → failed + slot (transaction)', 'pending → failed'],
      ['failed → pending + slot (retry transaction)', 'failed → pending (retry)'],
      ['pending → canceled + slot (transaction)', 'pending → canceled'],
      ['worker probe step (claim, reuse, limits, start)', 'worker probe step'],
      ['worker finalize step (output record, reuse, done)', 'worker finalize step'],
    ];
    for (const [name, key] of rows) write(`${name.padEnd(62)} ${String(counts.get(key) ?? 0).padStart(3)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
