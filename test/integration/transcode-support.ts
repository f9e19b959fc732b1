import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TranscodeJobRecord, TranscodeStatus } from '../../functions/shared/data/transcode-jobs';
import { ulid } from '../../functions/shared/ids';
import type { TranscodePreset } from '../../functions/shared/types/transcodes';
import { call } from './support';

/**
 * Helpers of the media transform tests. Sources are generated with ffmpeg at test time and stored the way
 * the storage routes store uploads: an object under `companies/<companyId>/` in the platform bucket.
 */
const FFMPEG = '/usr/bin/ffmpeg';
const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];

export type SourceKind = 'tone' | 'video' | 'long' | 'corrupt' | 'cover';

const generate = (kind: SourceKind, file: string, seconds: number) => {
  if (kind === 'corrupt') {
    writeFileSync(file, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
  } else if (kind === 'cover') {
    // MP3 audio with cover art: a one-frame picture stream marked as an attached picture.
    execFileSync(FFMPEG, [
      ...quiet,
      ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`],
      ...['-f', 'lavfi', '-i', 'color=c=red:s=64x64:d=1'],
      ...['-map', '0:a', '-map', '1:v', '-frames:v', '1', '-c:a', 'libmp3lame', '-c:v', 'mjpeg'],
      ...['-disposition:v:0', 'attached_pic', '-id3v2_version', '3', '-f', 'mp3', file],
    ]);
  } else if (kind === 'video') {
    execFileSync(FFMPEG, [
      ...quiet,
      ...['-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${seconds}`],
      ...['-f', 'lavfi', '-i', `sine=frequency=660:sample_rate=44100:duration=${seconds}`],
      ...['-c:v', 'mpeg4', '-c:a', 'pcm_s16le', '-shortest', '-f', 'matroska', file],
    ]);
  } else {
    // `long`: minutes of 8 kHz mono PCM: cheap to create, slow enough to convert to catch it mid-flight.
    const rate = kind === 'long' ? 8000 : 44100;
    execFileSync(FFMPEG, [
      ...quiet,
      ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`],
      ...['-f', 'wav', file],
    ]);
  }
};

/** Generates a source and stores it for the company; returns its storage reference. */
export const storeSource = async (
  companyId: string,
  kind: SourceKind,
  options: { seconds?: number; name?: string } = {},
) => {
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const dir = mkdtempSync(join(tmpdir(), 'tc-src-'));
  try {
    const file = join(dir, 'source');
    generate(kind, file, options.seconds ?? (kind === 'long' ? 1800 : 3));
    const fullPath = `companies/${companyId}/uploads/${options.name ?? `${kind}-${Math.random().toString(36).slice(2)}`}`;
    const bucket = process.env.BUCKET_NAME ?? '';
    const contentType = kind === 'video' ? 'video/x-matroska' : kind === 'cover' ? 'audio/mpeg' : 'audio/wav';
    const { size, etag } = await uploadFile(bucket, fullPath, file, contentType);
    const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
    const now = new Date();
    await recordStoredObject(
      companyId,
      { bucket, fullPath, size, etag, contentType, createdAt: now.toISOString() },
      now,
    );
    return { bucket, fullPath };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export type Job = {
  id: string;
  status: TranscodeStatus;
  preset: TranscodePreset;
  source: { bucket: string; fullPath: string };
  output: { bucket: string; fullPath: string } | null;
  progress: { phase: string; percent?: number } | null;
  error: { code: string; message: string } | null;
  attempt: number;
  reused: boolean;
  billedSeconds: number;
  durationSeconds: number | null;
  leaseUntil: string | null;
  finishedAt: string | null;
};

export const getJob = async (apiKey: string, id: string): Promise<Job> => {
  const res = await call('GET', `/v1/transcodes/${id}`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return res.json.job as Job;
};

/** Polls the job over HTTP until `until` holds (default: a final state). */
export const waitForJob = async (
  apiKey: string,
  id: string,
  until: (job: Job) => boolean = (j) => ['done', 'failed', 'canceled'].includes(j.status),
  timeoutMs = 45_000,
  pollMs = 100,
): Promise<Job> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(apiKey, id);
    if (until(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
};

/** ffmpeg processes of a job (the local engine runs them in a directory named after the job). */
export const ffmpegProcessesOf = (jobId: string): string[] =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('ffmpeg') && line.includes(`transcode-${jobId}-`));

/** Downloads a stored object and returns its ffprobe JSON. */
export const probeStored = async (ref: { bucket: string; fullPath: string }) => {
  const { downloadObject } = await import('../../functions/shared/aws/s3-objects');
  const { ffprobeFile } = await import('../../functions/local/media-engine');
  const dir = mkdtempSync(join(tmpdir(), 'tc-out-'));
  try {
    const file = join(dir, 'out');
    await downloadObject(ref.bucket, ref.fullPath, file);
    return await ffprobeFile(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const baseJob = (
  companyId: string,
  source: { bucket: string; fullPath: string },
  preset: TranscodePreset,
) => {
  const now = new Date().toISOString();
  return {
    // As enqueue makes them: a ULID of the creation time (the lists filter creation time by id).
    jobId: `tc_${ulid(Date.parse(now))}`,
    companyId,
    status: 'pending' as TranscodeStatus,
    preset,
    source: { ...source, size: 1, etag: `seed-${Math.random()}` },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    createdAt: now,
    updatedAt: now,
    attemptStartedAt: now,
  } satisfies TranscodeJobRecord;
};

/**
 * Puts a job straight into `status` through the job module's own transitions (no execution runs it), so
 * every row of the state table can be exercised from a known state.
 */
export const seedJob = async (
  companyId: string,
  status: TranscodeStatus,
  options: {
    source?: { bucket: string; fullPath: string };
    preset?: TranscodePreset;
    queueCap?: number;
  } = {},
): Promise<TranscodeJobRecord> => {
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { lifecycle, moves } = transcodeJobs;
  const source = options.source ?? {
    bucket: process.env.BUCKET_NAME ?? '',
    fullPath: `companies/${companyId}/none`,
  };
  const job = baseJob(companyId, source, options.preset ?? 'wav');
  const now = new Date();
  const lease = new Date(now.getTime() + 600_000);
  const ref = { companyId: job.companyId, jobId: job.jobId, attempt: 1 };
  await lifecycle.createJob(job, options.queueCap ?? 100);
  const steps: Record<TranscodeStatus, () => Promise<unknown>> = {
    pending: async () => undefined,
    probing: () => moves.advance({ job: ref, from: ['pending'], to: 'probing', leaseUntil: lease, now }),
    transcoding: async () => {
      await steps.probing();
      await moves.advance({
        job: ref,
        from: ['probing'],
        to: 'transcoding',
        leaseUntil: lease,
        percent: 0,
        set: { durationSeconds: 3, hasVideo: false },
        now,
      });
    },
    finalizing: async () => {
      await steps.transcoding();
      await moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', leaseUntil: lease, now });
    },
    done: async () => {
      await steps.finalizing();
      const output = { ...source, size: 1, contentType: 'audio/wav' };
      await moves.complete({ job: ref, from: ['finalizing'], set: { output }, billedUnits: 3, now });
    },
    failed: () => moves.fail({ job: ref, error: { code: 'source_unreadable', message: 'seeded' }, now }),
    canceled: () => moves.cancel(job, now),
  };
  await steps[status]();
  const stored = await lifecycle.getJob(ref.companyId, ref.jobId);
  if (stored?.status !== status) throw new Error(`seeding ${status} gave ${stored?.status}`);
  return stored;
};

/** Sets per-company limit overrides (what an operator does for a customer). */
export { setCompanyLimitOverrides as overrideLimits } from './storage-support';

/** Sets a lease directly on a job: the state the spec says should not normally occur. */
export const setLease = async (companyId: string, jobId: string, leaseUntil: Date) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: transcodeJobs.lifecycle.jobKey(companyId, jobId),
      UpdateExpression: 'SET leaseUntil = :l',
      ExpressionAttributeValues: { ':l': leaseUntil.toISOString() },
    }),
  );
};

export const queueOf = async (companyId: string) =>
  (await import('../../functions/shared/domain/transcodes')).transcodeJobs.lifecycle.readQueue(companyId);

export const transcodeSecondsOf = async (apiKey: string) => {
  const res = await call('GET', '/v1/usage', { headers: { 'x-api-key': apiKey } });
  return (res.json.usage as { meters: { transcode_seconds: number } }).meters.transcode_seconds;
};

/** The company's reuse entries (`REUSE#...` items of its transcode partition). */
export const reuseItemsOf = async (companyId: string) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { partitions } = await import('../../functions/shared/data/keys');
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :r)',
      ExpressionAttributeValues: { ':p': partitions.transcodes(companyId), ':r': 'REUSE#' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
};

/** The stored job item, with what the public job does not show (its engine, its execution). */
const storedJobOf = async (companyId: string, jobId: string) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeJobs.lifecycle.jobKey(companyId, jobId) }),
  );
  return Item as Partial<TranscodeJobRecord> | undefined;
};

/** The engine that converted a job (internal: the stored job records it, the public job does not show it). */
export const engineOf = async (companyId: string, jobId: string) =>
  (await storedJobOf(companyId, jobId))?.engine;

/** The execution the job records (the one cancel stops, unless it is an Express one). */
export const executionArnOf = async (companyId: string, jobId: string) =>
  (await storedJobOf(companyId, jobId))?.executionArn;
