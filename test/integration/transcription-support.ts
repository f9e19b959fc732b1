import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type {
  TranscriptionJobRecord,
  TranscriptionStatus,
} from '../../functions/shared/data/transcription-jobs';
import { ulid } from '../../functions/shared/ids';
import type { TranscriptionResult } from '../../functions/shared/types/transcriptions';
import { call } from './support';

/**
 * Helpers of the transcription tests. Speech comes from `pocketsphinx-testdata` (LibriVox recordings with
 * their transcripts), never from a synthesizer; other sources are generated with ffmpeg at test time.
 */
const FFMPEG = '/usr/bin/ffmpeg';
const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
const TESTDATA = '/usr/share/pocketsphinx/test/data/librivox';

/** Two recordings, with words of their transcripts that the en-US model recognises. */
export const RECORDINGS = {
  dashwood: {
    file: `${TESTDATA}/sense_and_sensibility_01_austen_64kb-0870.wav`,
    transcript:
      'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them',
    keywords: ['consider', 'much', 'power'],
  },
  amiable: {
    file: `${TESTDATA}/sense_and_sensibility_01_austen_64kb-0920.wav`,
    transcript:
      'had he married a more a amiable woman he might have been made still more respectable than he was',
    keywords: ['married', 'amiable', 'respectable'],
  },
  /** Three clips in a row (0870, 0920, 0880): several utterances, words timed from the start of the file. */
  sequence: {
    file: ['0870', '0920', '0880'].map((n) => `${TESTDATA}/sense_and_sensibility_01_austen_64kb-${n}.wav`),
    transcript:
      'and mister john dashwood had then leisure to consider how much there might be prudently in his power ' +
      'to do for them had he married a more a amiable woman he might have been made still more respectable ' +
      'than he was he was not an ill disposed young man',
    keywords: ['consider', 'married', 'young', 'man'],
  },
} as const;

export type SpeechSource = keyof typeof RECORDINGS;
export type OtherSource = 'silent-video' | 'corrupt' | 'text';

const encode = (input: string | readonly string[], file: string, format: 'wav' | 'flac' | 'ogg') =>
  execFileSync(FFMPEG, [
    ...quiet,
    ...(typeof input === 'string'
      ? ['-i', input]
      : [...input.flatMap((f) => ['-i', f]), '-filter_complex', `concat=n=${input.length}:v=0:a=1`]),
    ...(format === 'ogg' ? ['-c:a', 'libopus'] : []),
    '-f',
    format,
    file,
  ]);

const generate = (kind: OtherSource, file: string) => {
  if (kind === 'corrupt') {
    writeFileSync(file, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
  } else if (kind === 'text') {
    writeFileSync(file, 'This is a text file, not audio.\n'.repeat(50));
  } else {
    // Video without an audio stream.
    execFileSync(FFMPEG, [
      ...quiet,
      ...['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=2'],
      ...['-c:v', 'mpeg4', '-f', 'matroska', file],
    ]);
  }
};

const CONTENT_TYPES: Record<string, string> = {
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  'silent-video': 'video/x-matroska',
  corrupt: 'audio/wav',
  text: 'text/plain',
};

/** Stores a file for the company the way the storage routes store uploads; returns its reference. */
export const storeFile = async (companyId: string, file: string, name: string, contentType: string) => {
  const { uploadFile } = await import('../../functions/shared/aws/s3-objects');
  const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
  const fullPath = `companies/${companyId}/uploads/${name}`;
  const bucket = process.env.BUCKET_NAME ?? '';
  const { size, etag } = await uploadFile(bucket, fullPath, file, contentType);
  const now = new Date();
  await recordStoredObject(
    companyId,
    { bucket, fullPath, size, etag, contentType, createdAt: now.toISOString() },
    now,
  );
  return { bucket, fullPath };
};

/** Stores a recording (re-encoded to `format`) or a generated non-speech source for the company. */
export const storeSource = async (
  companyId: string,
  kind: SpeechSource | OtherSource,
  options: { format?: 'wav' | 'flac' | 'ogg'; name?: string } = {},
) => {
  const dir = mkdtempSync(join(tmpdir(), 'tr-src-'));
  try {
    const file = join(dir, 'source');
    const format = options.format ?? 'wav';
    if (kind in RECORDINGS) encode(RECORDINGS[kind as SpeechSource].file, file, format);
    else generate(kind as OtherSource, file);
    const type = kind in RECORDINGS ? format : kind;
    const name = options.name ?? `${kind}-${Math.random().toString(36).slice(2)}.${format}`;
    return await storeFile(companyId, file, name, CONTENT_TYPES[type] ?? 'application/octet-stream');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export type Job = {
  id: string;
  status: TranscriptionStatus;
  language: string;
  source: { bucket: string; fullPath: string };
  progress: { phase: string; percent?: number } | null;
  error: { code: string; message: string } | null;
  reused: boolean;
  billedSeconds: number;
  durationSeconds: number | null;
  result: TranscriptionResult | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
};

export const enqueue = (
  apiKey: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) => call('POST', '/v1/transcriptions', { headers: { 'x-api-key': apiKey, ...headers }, body });

export const getJob = async (apiKey: string, id: string): Promise<Job> => {
  const res = await call('GET', `/v1/transcriptions/${id}`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return res.json.job as Job;
};

/** Polls the job over HTTP until `until` holds (default: a final state). */
export const waitForJob = async (
  apiKey: string,
  id: string,
  until: (job: Job) => boolean = (j) => ['done', 'failed'].includes(j.status),
  timeoutMs = 60_000,
): Promise<Job> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(apiKey, id);
    if (until(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Downloads a stored object through GET /v1/storage/url, as a tenant would. */
export const download = async (apiKey: string, ref: { fullPath: string }) => {
  const url = await call('GET', `/v1/storage/url?fullPath=${encodeURIComponent(ref.fullPath)}`, {
    headers: { 'x-api-key': apiKey },
  });
  expect(url.status).toBe(200);
  const file = await fetch(String(url.json.url));
  expect(file.status).toBe(200);
  return { contentType: file.headers.get('content-type'), text: await file.text() };
};

/** Puts a job straight into `status` through the data module (no execution runs it). */
export const seedJob = async (
  companyId: string,
  status: 'pending' | 'transcribing' | 'failed',
  queueCap = 100,
  source?: { bucket: string; fullPath: string },
): Promise<TranscriptionJobRecord> => {
  const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
  const now = new Date();
  const iso = now.toISOString();
  const job: TranscriptionJobRecord = {
    // As enqueue makes them: a ULID of the creation time (the lists filter creation time by id).
    jobId: `tr_${ulid(now.getTime())}`,
    companyId,
    status: 'pending',
    language: 'en-US',
    source: {
      bucket: process.env.BUCKET_NAME ?? '',
      fullPath: `companies/${companyId}/none`,
      ...source,
      size: 1,
      etag: 'e',
    },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    createdAt: iso,
    updatedAt: iso,
    attemptStartedAt: iso,
  };
  await transcriptionJobs.lifecycle.createJob(job, queueCap);
  const ref = { companyId, jobId: job.jobId, attempt: 1 };
  if (status !== 'pending') {
    const leaseUntil = new Date(now.getTime() + 600_000);
    await transcriptionJobs.moves.advance({
      job: ref,
      from: ['pending'],
      to: 'transcribing',
      leaseUntil,
      now,
    });
  }
  if (status === 'failed') {
    await transcriptionJobs.moves.fail({
      job: ref,
      error: { code: 'source_unreadable', message: 'seeded' },
      now,
    });
  }
  const stored = await transcriptionJobs.lifecycle.getJob(companyId, job.jobId);
  if (stored?.status !== status) throw new Error(`seeding ${status} gave ${stored?.status}`);
  return stored;
};

export const queueOf = async (companyId: string) =>
  (await import('../../functions/shared/domain/transcriptions')).transcriptionJobs.lifecycle.readQueue(
    companyId,
  );

export const transcriptionSecondsOf = async (apiKey: string) => {
  const res = await call('GET', '/v1/usage', { headers: { 'x-api-key': apiKey } });
  return (res.json.usage as { meters: { transcription_seconds: number } }).meters.transcription_seconds;
};

export { setCompanyLimitOverrides as overrideLimits } from './storage-support';

/** SRT or WebVTT cues: `[start, end, text]` with times in seconds; throws on a malformed file. */
export const parseSubtitles = (text: string, format: 'srt' | 'vtt'): [number, number, string][] => {
  const separator = format === 'srt' ? ',' : '.';
  const time = new RegExp(
    `^(\\d{2}):(\\d{2}):(\\d{2})\\${separator}(\\d{3}) --> (\\d{2}):(\\d{2}):(\\d{2})\\${separator}(\\d{3})$`,
  );
  let body = text;
  if (format === 'vtt') {
    if (!text.startsWith('WEBVTT\n\n')) throw new Error('no WEBVTT header');
    body = text.slice('WEBVTT\n\n'.length);
  }
  const blocks = body.split('\n\n').filter((b) => b.trim() !== '');
  return blocks.map((block, i) => {
    const lines = block.split('\n').filter(Boolean);
    if (format === 'srt' && lines.shift() !== String(i + 1)) throw new Error(`cue ${i + 1} not numbered`);
    const match = time.exec(lines.shift() ?? '');
    if (!match) throw new Error(`cue ${i + 1} has no timing line`);
    const n = match.slice(1).map(Number) as number[];
    const at = (o: number) =>
      (n[o] ?? 0) * 3600 + (n[o + 1] ?? 0) * 60 + (n[o + 2] ?? 0) + (n[o + 3] ?? 0) / 1000;
    if (lines.length === 0) throw new Error(`cue ${i + 1} has no text`);
    return [at(0), at(4), lines.join(' ')];
  });
};
