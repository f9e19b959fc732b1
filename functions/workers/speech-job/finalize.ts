import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteObject, putObject } from '../../shared/aws/s3';
import { downloadObject, headObject, readObjectText, uploadFile } from '../../shared/aws/s3-objects';
import { completeSpeechJob, getSpeechJob, type SpeechJobRecord } from '../../shared/data/speech-jobs';
import { recordStoredObject } from '../../shared/data/stored-objects';
import { mp3Seconds, oggOpusSeconds, PCM_SAMPLE_RATE, wavHeader } from '../../shared/domain/audio-frames';
import { startStepClock } from '../../shared/domain/compute-time';
import { speechJobAttemptFolder } from '../../shared/domain/speech-jobs';
import { parseSentenceMarks, timingsFromMarks } from '../../shared/domain/speech-timings';
import { logger } from '../../shared/logger';
import type { SpeechJobResult } from '../../shared/types/speech-jobs';
import { SPEECH_FORMAT_FILES } from '../../shared/types/speech-voices';
import { jobGone, stepError } from './errors';
import { finishOrGone } from './transitions';
import type { FinalizeInput, JobRef } from './types';

/** Bucket and key of a task's `OutputUri` (`https://s3.<region>.amazonaws.com/<bucket>/<key>`, path style). */
export const objectOfUri = (uri: string): { bucket: string; key: string } => {
  const path = decodeURIComponent(new URL(uri).pathname).replace(/^\//, '');
  const slash = path.indexOf('/');
  if (slash <= 0) throw stepError('OutputMissing', `Not an object URI: ${uri}`);
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
};

/**
 * The audio as stored for the tenant, and its duration read from its bytes: Polly's `pcm` becomes a WAV file
 * (the header written before the samples, the raw file deleted); mp3 and Ogg Opus stay where Polly wrote them.
 */
const storeAudio = async (job: SpeechJobRecord, uri: string, dir: string) => {
  const { bucket, key } = objectOfUri(uri);
  const file = join(dir, 'audio');
  await downloadObject(bucket, key, file).catch(() => {
    throw stepError('OutputMissing', 'The speech engine wrote no audio.');
  });
  const data = await readFile(file);
  const { contentType } = SPEECH_FORMAT_FILES[job.format];
  if (job.format === 'wav') {
    const wav = join(dir, 'audio.wav');
    await writeFile(wav, Buffer.concat([wavHeader(data.length), data]));
    const fullPath = `${speechJobAttemptFolder(job)}audio.wav`;
    const { size, etag } = await uploadFile(bucket, fullPath, wav, contentType);
    await deleteObject(bucket, key);
    return { bucket, fullPath, size, etag, contentType, seconds: data.length / (PCM_SAMPLE_RATE * 2) };
  }
  const head = await headObject(bucket, key);
  if (!head) throw stepError('OutputMissing', 'The speech engine wrote no audio.');
  const seconds = job.format === 'mp3' ? mp3Seconds(data) : oggOpusSeconds([data]);
  return { bucket, fullPath: key, size: head.size, etag: head.etag, contentType, seconds };
};

/**
 * Finalize step: measures the audio, turns the sentence speech marks into the timing file, records both files
 * as the company's stored objects (downloadable, counted in storage bytes), then moves the job
 * `synthesizing` → `done`, billing its characters with the compute time and writing the reuse entry in the
 * same transaction, and deletes the intermediate files (the marks, the text). Error: `OutputMissing`.
 */
export const finalizeStep = async (input: FinalizeInput, deps: { now?: () => Date }): Promise<JobRef> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const job = await getSpeechJob(ref.companyId, ref.jobId);
  if (!job || job.attempt !== ref.attempt || job.status !== 'synthesizing') throw jobGone(ref.jobId);
  const marks = objectOfUri(input.marksUri);
  const marksText = await readObjectText(marks.bucket, marks.key);
  if (marksText === undefined) throw stepError('OutputMissing', 'The speech engine wrote no speech marks.');
  const dir = await mkdtemp(join(tmpdir(), 'speech-job-'));
  let audio: Awaited<ReturnType<typeof storeAudio>>;
  try {
    audio = await storeAudio(job, input.audioUri, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const durationSeconds = Math.round(audio.seconds * 1000) / 1000;
  const sentences = timingsFromMarks(parseSentenceMarks(marksText), durationSeconds * 1000);
  const timingsPath = `${speechJobAttemptFolder(job)}timings.json`;
  const body = JSON.stringify(sentences);
  const { etag } = await putObject(audio.bucket, timingsPath, body, 'application/json');
  const createdAt = now.toISOString();
  await Promise.all([
    recordStoredObject(
      ref.companyId,
      { bucket: audio.bucket, fullPath: audio.fullPath, size: audio.size, contentType: audio.contentType, etag: audio.etag, createdAt },
      now,
    ),
    recordStoredObject(
      ref.companyId,
      { bucket: audio.bucket, fullPath: timingsPath, size: Buffer.byteLength(body), contentType: 'application/json', etag, createdAt },
      now,
    ),
  ]);
  const result: SpeechJobResult = {
    audio: { bucket: audio.bucket, fullPath: audio.fullPath, size: audio.size, format: job.format },
    timings: { bucket: audio.bucket, fullPath: timingsPath, sentences: sentences.length },
  };
  await finishOrGone(ref.jobId, () =>
    completeSpeechJob({
      job: ref,
      result,
      durationSeconds,
      billedCharacters: job.characters,
      reused: false,
      // Polly reports no run time of its tasks: the job bills the worker steps' time only.
      computeMs: { workers: (input.workerMs ?? 0) + elapsed() },
      reuse: { job, entry: { result, sourceJobId: ref.jobId, durationSeconds, createdAt } },
      now,
      observed: job,
    }),
  );
  // Intermediate files: once the job is `done` nothing reads them again.
  await Promise.all(
    [marks, { bucket: job.input.bucket, key: job.input.fullPath }].map(({ bucket, key }) =>
      deleteObject(bucket, key).catch((error: unknown) =>
        logger.warn('intermediate file not deleted', { jobId: ref.jobId, key, error: error as Error }),
      ),
    ),
  );
  return ref;
};
