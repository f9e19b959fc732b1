import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';

/**
 * Transcriptions bench (part of `npm run bench`; `npm run bench -- transcriptions` runs only this part),
 * against the local stack it started:
 *  1. for a 60-second recording (LibriVox speech of `pocketsphinx-testdata`, looped), enqueue-to-`done` wall
 *     time through the local stack (HTTP enqueue, Step Functions emulator, workers, ffmpeg, pocketsphinx, S3,
 *     polling GET every 20 ms) minus pocketsphinx's own run time in that job: the fixed overhead of a local
 *     job (median of RUNS runs, each on new content so nothing is reused); pocketsphinx run directly on the
 *     same file for reference;
 *  2. DynamoDB requests of enqueue, get, every transition and each worker step, counted at the SDK client.
 */
const RUNS = Number(process.env.BENCH_TRANSCRIPTION_RUNS ?? 3);
const SOURCE_SECONDS = 60;
const FFMPEG = '/usr/bin/ffmpeg';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const RECORDINGS = ['0870', '0880', '0890', '0920', '0930'].map(
  (n) => `${LIBRIVOX}/sense_and_sensibility_01_austen_64kb-${n}.wav`,
);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export const benchTranscriptions = async (apiUrl: string, write: (line: string) => void) => {
  const { dynamodbClient } = await import('../../functions/shared/data/client');
  const label = new AsyncLocalStorage<string>();
  const counts = new Map<string, number>();
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      const current = label.getStore();
      if (current) counts.set(current, (counts.get(current) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchTranscriptionCounter' },
  );
  const counted = async <T>(name: string, fn: () => Promise<T>): Promise<T> => label.run(name, fn);

  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  const { env } = await import('../../functions/shared/env');
  const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
  const { lifecycle, moves } = transcriptionJobs;
  const { createTranscriptionWorker } = await import('../../functions/workers/transcription/worker');
  const { probeWithFfprobe } = await import('../../functions/local/media-engine');
  const { recognise } = await import('../../functions/local/speech-engine');
  const { recogniserRuns } = await import('../../functions/local/step-functions/transcription-tasks');
  const { jobExecutionName: transcriptionExecutionName } = await import(
    '../../functions/shared/domain/jobs/enqueue'
  );
  const transcriptions = (await import('../../functions/api/transcriptions/index')).handler;
  const authorizer = (await import('../../functions/authorizer/index')).handler;

  const now = () => new Date();
  const company = await createCompanyWithPlan({ name: 'Transcription bench', planId: 'legacy-pro' }, now());
  const companyId = company.companyId;
  const apiKey = (await createApiKey(companyId, { name: 'bench', scopes: [...SCOPES] }, now())).key;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const bucket = env().bucketName;
  const dir = mkdtempSync(join(tmpdir(), 'bench-transcription-'));
  const list = join(dir, 'list.txt');
  writeFileSync(
    list,
    Array.from({ length: 3 }, () => RECORDINGS.map((f) => `file '${f}'`))
      .flat()
      .join('\n'),
  );

  let variant = 0;
  /** A new 60-second recording: the LibriVox clips looped, at a slightly different gain each time. */
  const newSource = async () => {
    variant += 1;
    const file = join(dir, `speech-${variant}.wav`);
    execFileSync(FFMPEG, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list],
      ...['-t', String(SOURCE_SECONDS), '-af', `volume=${(1 - variant / 100).toFixed(2)}`, file],
    ]);
    const fullPath = `companies/${companyId}/bench/speech-${variant}.wav`;
    const { size, etag } = await uploadFile(bucket, fullPath, file, 'audio/wav');
    await recordStoredObject(
      companyId,
      { bucket, fullPath, size, etag, contentType: 'audio/wav', createdAt: now().toISOString() },
      now(),
    );
    return { file, fullPath };
  };

  const viaStack = async (fullPath: string) => {
    const started = performance.now();
    const res = await fetch(`${apiUrl}/v1/transcriptions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ fullPath }),
    });
    const { job } = (await res.json()) as { job: { id: string } };
    for (;;) {
      const got = (await fetch(`${apiUrl}/v1/transcriptions/${job.id}`, { headers }).then((r) =>
        r.json(),
      )) as {
        job: { status: string };
      };
      if (got.job.status === 'done') {
        const wallMs = performance.now() - started;
        const recogniserMs = recogniserRuns.get(transcriptionExecutionName(job.id, 1)) ?? Number.NaN;
        return { wallMs, recogniserMs };
      }
      if (got.job.status === 'failed') throw new Error(`bench job ${job.id} failed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  try {
    write(`\n== Transcriptions: ${SOURCE_SECONDS}-second recording, median of ${RUNS} runs\n`);
    await viaStack((await newSource()).fullPath); // warm-up: module loading, first execution
    const wall: number[] = [];
    const recogniser: number[] = [];
    const overhead: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const source = await newSource();
      const started = performance.now();
      await recognise(source.file, new AbortController().signal);
      direct.push(performance.now() - started);
      const run = await viaStack(source.fullPath);
      wall.push(run.wallMs);
      recogniser.push(run.recogniserMs);
      overhead.push(run.wallMs - run.recogniserMs);
    }
    write(`enqueue → done through the local stack, ms            ${median(wall).toFixed(0).padStart(7)}\n`);
    write(
      `pocketsphinx's own run time in that job, ms             ${median(recogniser).toFixed(0).padStart(7)}\n`,
    );
    write(
      `fixed overhead of a local job (difference), ms          ${median(overhead).toFixed(0).padStart(7)}\n`,
    );
    write(
      `ffmpeg + pocketsphinx run directly on the file, ms      ${median(direct).toFixed(0).padStart(7)}\n`,
    );

    // DynamoDB requests: the routes in-process, then each transition and worker step on its own.
    const source = await newSource();
    const auth = await authorizer({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/v1/POST/transcriptions',
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
      transcriptions(
        proxy('POST', '/transcriptions', '/transcriptions', { fullPath: source.fullPath }),
        context,
      );
    await counted('warm', enqueue); // plan cache and clients warm, as on a warm Lambda
    const enqueued = JSON.parse((await counted('enqueue', enqueue)).body) as { job: { id: string } };
    await counted('get', () =>
      transcriptions(
        proxy(
          'GET',
          '/transcriptions/{id}',
          `/transcriptions/${enqueued.job.id}`,
          undefined,
          enqueued.job.id,
        ),
        context,
      ),
    );
    // Transitions of the job module, on jobs no execution runs.
    const job = {
      jobId: `tr_bench${Date.now()}`,
      companyId,
      status: 'pending' as const,
      language: 'en-US' as const,
      source: { bucket, fullPath: source.fullPath, size: 1, etag: `bench-${Date.now()}` },
      attempt: 1,
      reused: false,
      billedSeconds: 0,
      createdAt: now().toISOString(),
      updatedAt: now().toISOString(),
      attemptStartedAt: now().toISOString(),
    };
    const lease = new Date(Date.now() + 60_000);
    const ref = { companyId, jobId: job.jobId, attempt: 1 };
    await counted('create', () => lifecycle.createJob(job, 1000));
    await counted('claim', () =>
      moves.advance({ job: ref, from: ['pending'], to: 'transcribing', leaseUntil: lease, now: now() }),
    );
    await counted('probed', () =>
      moves.advance({
        job: ref,
        from: ['transcribing'],
        to: 'transcribing',
        leaseUntil: lease,
        set: { durationSeconds: 60 },
        now: now(),
      }),
    );
    const files = {
      json: { bucket, fullPath: 'x.json' },
      srt: { bucket, fullPath: 'x.srt' },
      vtt: { bucket, fullPath: 'x.vtt' },
    };
    const result = {
      text: 'x',
      textTruncated: false,
      words: [],
      wordsInFile: false,
      wordCount: 0,
      language: 'en-US',
      files,
    };
    await counted('done', () =>
      moves.complete({
        job: ref,
        from: ['transcribing'],
        set: { result },
        billedUnits: 60,
        reuse: {
          key: `en-US#1#${job.source.etag}`,
          entry: { result, sourceJobId: job.jobId, durationSeconds: 60, createdAt: now().toISOString() },
        },
        now: now(),
      }),
    );
    const second = { ...job, jobId: `${job.jobId}b` };
    await lifecycle.createJob(second, 1000);
    await counted('failed', () =>
      moves.fail({ job: second, error: { code: 'internal', message: 'bench' }, now: now() }),
    );
    // Worker steps in-process on a real recording (probe: S3 and ffprobe; finalize: files, records, done).
    const worker = createTranscriptionWorker({ probe: probeWithFfprobe });
    const third = {
      ...job,
      jobId: `${job.jobId}c`,
      source: { ...job.source, etag: `bench-c-${Date.now()}` },
    };
    await lifecycle.createJob(third, 1000);
    const probed = (await counted('probe step', () =>
      worker({ action: 'probe', companyId, jobId: third.jobId, attempt: 1 }),
    )) as { engineOutput: { bucket: string; fullPath: string }; source: { size: number; etag: string } };
    const { tasks } = await import('../../functions/local/step-functions/transcription-tasks');
    const probedParameters = (probed as unknown as { transcribe: { TranscriptionJobName: string } })
      .transcribe;
    const taskContext = { signal: new AbortController().signal, executionArn: 'bench' };
    await tasks.StartTranscription?.(probedParameters, taskContext);
    for (;;) {
      const checked = (await tasks.CheckTranscription?.(probedParameters, taskContext)) as {
        TranscriptionJob: { TranscriptionJobStatus: string };
      };
      if (checked.TranscriptionJob.TranscriptionJobStatus === 'COMPLETED') break;
      if (checked.TranscriptionJob.TranscriptionJobStatus === 'FAILED')
        throw new Error('bench engine run failed');
    }
    await counted('finalize step', () =>
      worker({
        action: 'finalize',
        companyId,
        jobId: third.jobId,
        attempt: 1,
        durationSeconds: 60,
        engineOutput: probed.engineOutput,
        source: probed.source,
      }),
    );

    write('\n== DynamoDB requests per transcription operation (counted at the SDK client)\n');
    const rows: [string, string][] = [
      ['POST /v1/transcriptions handler (warm; incl. api_requests meter)', 'enqueue'],
      ['GET /v1/transcriptions/{id} handler (incl. meter)', 'get'],
      ['create job + queue slot (transaction)', 'create'],
      ['pending → transcribing (lease)', 'claim'],
      ['probe result + lease renewal', 'probed'],
      ['transcribing → done + slot + meter + reuse (transaction)', 'done'],
      ['pending → failed + slot (transaction)', 'failed'],
      ['worker probe step (claim, reuse, limits, probe record)', 'probe step'],
      ['worker finalize step (3 file records, done)', 'finalize step'],
    ];
    for (const [name, key] of rows) write(`${name.padEnd(64)} ${String(counts.get(key) ?? 0).padStart(3)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
