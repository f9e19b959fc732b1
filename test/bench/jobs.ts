import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run bench -- jobs`: the fixed overhead of a job of every job type, through the local stack it started.
 * A job's overhead is its enqueue-to-`done` wall time (from the HTTP enqueue request's start to the commit of
 * the job's move to `done`) minus the engine's own run time: the time during which one of the media engine's
 * processes ran (ffprobe, ffmpeg, pocketsphinx, espeak-ng; the union of their spans inside the job,
 * `local/engine-processes.ts`). Everything else (the enqueue request, table and S3 round trips, the Step
 * Functions interpreter's hops, the handlers) is overhead: what every job pays whatever its media. The client
 * polls `GET` every POLL_MS, as a client would, and when it saw `done` is printed apart: each poll is three
 * table requests, so polling every few milliseconds would load the one DynamoDB Local the job runs on. Each
 * run uses new content (nothing is reused), on a short source so the engine's time stays small; the median
 * of RUNS.
 *
 * The machine these run on is shared and its load varies, so each job is followed by CALIBRATION DynamoDB
 * reads (`GetItem` of the job, the cheapest round trip a step makes) and the overhead is also printed in
 * those round trips (`overhead ÷ round trip`): a figure comparable between runs under different loads.
 * Where the overhead goes is printed too: enqueue (the POST's answer), from the answer to the first Task
 * state, each Task state's handler (the engine's processes inside it taken out), the gaps between them (the
 * interpreter's own transitions).
 */
const RUNS = Number(process.env.BENCH_JOB_RUNS ?? 7);
/** `BENCH_JOB_TRACE=1` prints the timeline of the last job of each type: every DynamoDB and S3 request, Task
 * state and engine process, from the enqueue request's start. */
const TRACE = process.env.BENCH_JOB_TRACE === '1';
const POLL_MS = 100;
const CALIBRATION = 5;
const FFMPEG = '/usr/bin/ffmpeg';
const SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;

type Span = { state: string; start: number; end: number };

export const benchJobs = async (apiUrl: string, write: (line: string) => void) => {
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  const { env } = await import('../../functions/shared/env');
  const transcode = await import('../../functions/local/step-functions/transcode-tasks');
  const transcodeAudio = await import('../../functions/local/step-functions/transcode-audio-tasks');
  const transcription = await import('../../functions/local/step-functions/transcription-tasks');
  const speech = await import('../../functions/local/step-functions/speech-job-tasks');
  const { engineSpans, engineTimeWithin } = await import('../../functions/local/engine-processes');
  const { s3 } = await import('../../functions/shared/aws/s3');
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
  const { SPEECH_JOB_TYPE } = await import('../../functions/shared/domain/speech-jobs');
  /** When each job's move to `done` committed (the moves the worker steps call, timed). */
  const doneAt = new Map<string, number>();
  for (const moves of [transcodeJobs.moves, transcriptionJobs.moves, SPEECH_JOB_TYPE.moves]) {
    const complete = moves.complete.bind(moves) as (options: { job: { jobId: string } }) => Promise<unknown>;
    Object.assign(moves, {
      complete: async (options: { job: { jobId: string } }) => {
        const answer = await complete(options);
        doneAt.set(options.job.jobId, performance.now());
        return answer;
      },
    });
  }
  /** Every request of the clients the stack's handlers share, timed (for the trace). */
  const requests: { what: string; start: number; end: number }[] = [];
  for (const [label, client] of [
    ['ddb', ddb],
    ['s3', s3()],
  ] as const) {
    const send = client.send.bind(client) as (command: object) => Promise<unknown>;
    Object.assign(client, {
      send: async (command: object) => {
        const start = performance.now();
        try {
          return await send(command);
        } finally {
          const what = `${label} ${command.constructor.name.replace(/Command$/, '')}`;
          requests.push({ what, start, end: performance.now() });
          if (requests.length > 5000) requests.splice(0, 1000);
        }
      },
    });
  }
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { partitions, sortKeys } = await import('../../functions/shared/data/keys');
  /** Median time of one strongly consistent GetItem, now. */
  const roundTrip = async (jobId: string) => {
    const times: number[] = [];
    for (let i = 0; i < CALIBRATION; i++) {
      const started = performance.now();
      await ddb.send(
        new GetCommand({
          TableName: tableName(),
          Key: { pk: partitions.transcodes(companyId), sk: sortKeys.job(jobId) },
          ConsistentRead: true,
        }),
      );
      times.push(performance.now() - started);
    }
    return median(times);
  };

  // Every Task state's handler is timed, by execution (the override objects are the ones the stack runs).
  const spans = new Map<string, Span[]>();
  for (const tasks of [transcode.tasks, transcodeAudio.tasks, transcription.tasks, speech.tasks]) {
    for (const [state, task] of Object.entries(tasks)) {
      tasks[state] = async (input, ctx) => {
        const start = performance.now();
        try {
          return await task(input, ctx);
        } finally {
          // `…:execution:<machine>:<name>`, or an Express execution's `…:express:<machine>:<name>:<id>`.
          const parts = ctx.executionArn.split(':');
          const name = (parts[5] === 'express' ? parts[7] : parts.pop()) ?? '';
          spans.set(name, [...(spans.get(name) ?? []), { state, start, end: performance.now() }]);
        }
      };
    }
  }

  const now = () => new Date();
  const company = await createCompanyWithPlan({ name: 'Jobs bench', planId: 'legacy-pro' }, now());
  const companyId = company.companyId;
  const apiKey = (await createApiKey(companyId, { name: 'bench', scopes: [...SCOPES] }, now())).key;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const bucket = env().bucketName;
  const dir = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
  let variant = 0;
  /** New content each time (a different gain), stored for the company. */
  const newSource = async (input: string[], ext: string) => {
    variant += 1;
    const file = join(dir, `source-${variant}.${ext}`);
    execFileSync(FFMPEG, [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...input],
      ...['-af', `volume=${(1 - variant / 200).toFixed(3)}`, file],
    ]);
    const fullPath = `companies/${companyId}/bench/source-${variant}.${ext}`;
    const { size, etag } = await uploadFile(bucket, fullPath, file, 'audio/wav');
    await recordStoredObject(
      companyId,
      { bucket, fullPath, size, etag, contentType: 'audio/wav', createdAt: now().toISOString() },
      now(),
    );
    return fullPath;
  };

  const types = [
    {
      name: 'transcode',
      path: '/v1/transcodes',
      body: async () => ({
        fullPath: await newSource(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'], 'wav'),
        preset: 'wav',
      }),
    },
    {
      name: 'transcription',
      path: '/v1/transcriptions',
      body: async () => ({ fullPath: await newSource(['-i', SPEECH, '-t', '3'], 'wav') }),
    },
    {
      name: 'speech job',
      path: '/v1/speech/jobs',
      body: async () => ({
        text: `Job number ${++variant} of the bench. It has two short sentences.`,
        format: 'mp3',
      }),
    },
  ];

  write('\n== Jobs: fixed overhead of a job (enqueue → done, minus the engine’s own run time)\n');
  write(`(median of ${RUNS} runs per type; the client polls GET every ${POLL_MS} ms)\n`);
  for (const type of types) {
    const rows: Record<string, number>[] = [];
    for (let run = 0; run < RUNS; run++) {
      const body = JSON.stringify(await type.body());
      const started = performance.now();
      const res = await fetch(`${apiUrl}${type.path}`, { method: 'POST', headers, body });
      const answered = performance.now();
      const { job } = (await res.json()) as { job: { id: string } };
      let status = '';
      while (status !== 'done') {
        const got = (await fetch(`${apiUrl}${type.path}/${job.id}`, { headers }).then((r) => r.json())) as {
          job: { status: string };
        };
        status = got.job.status;
        if (status === 'failed' || status === 'canceled') throw new Error(`bench job ${job.id} failed`);
        if (status !== 'done') await new Promise((r) => setTimeout(r, POLL_MS));
      }
      const seen = performance.now();
      const done = doneAt.get(job.id) ?? seen;
      const rt = await roundTrip(job.id);
      const execution = `${job.id}-a1`;
      const engine = engineTimeWithin(started, done);
      const list = (spans.get(execution) ?? []).sort((a, b) => a.start - b.start);
      const row: Record<string, number> = {
        total: done - started,
        engine,
        overhead: done - started - engine,
        'round trip (GetItem)': rt,
        'overhead ÷ round trip': (done - started - engine) / rt,
        enqueue: answered - started,
        'answer → first task': (list[0]?.start ?? done) - answered,
      };
      let gaps = 0;
      list.forEach((span, i) => {
        const key = `task ${span.state}`;
        // Up to the move to `done` only (finalize's clean-up after it is not the job's overhead).
        const end = Math.min(span.end, done);
        row[key] = (row[key] ?? 0) + Math.max(0, end - span.start - engineTimeWithin(span.start, end));
        const next = list[i + 1];
        if (next) gaps += next.start - span.end;
      });
      row['gaps between tasks'] = gaps;
      row['done → seen by the client'] = seen - done;
      rows.push(row);
      if (TRACE && run === RUNS - 1) {
        const events = [
          ...requests.map((r) => ({ ...r, what: `  ${r.what}` })),
          ...list.map((t) => ({ ...t, what: `task ${t.state}` })),
          ...engineSpans.map((e) => ({ ...e, what: `  engine ${e.command.split('/').pop()}` })),
          { what: 'enqueue answered', start: answered, end: answered },
          { what: 'done', start: done, end: done },
          { what: 'done seen by the client', start: seen, end: seen },
        ].filter((e) => e.start >= started && e.start <= seen);
        write(`\n${type.name}: timeline of ${job.id} (start ms, duration ms)\n`);
        for (const e of events.sort((a, b) => a.start - b.start)) {
          write(
            `  ${(e.start - started).toFixed(0).padStart(5)} ${(e.end - e.start).toFixed(0).padStart(5)}  ${e.what}\n`,
          );
        }
      }
    }
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    write(`\n${type.name}\n`);
    for (const key of keys) {
      const value = median(rows.map((r) => r[key] ?? 0));
      write(`  ${key.padEnd(28)} ${key.includes('÷') ? `${value.toFixed(1).padStart(6)} ×` : ms(value)}\n`);
    }
    const each = rows.map((r) => r.overhead ?? 0).sort((a, b) => a - b);
    write(`  overhead of each run, sorted  ${each.map((v) => v.toFixed(0)).join(' ')} ms\n`);
  }
  rmSync(dir, { recursive: true, force: true });
};
