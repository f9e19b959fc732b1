import { mp3Seconds, oggOpusSeconds, PCM_SAMPLE_RATE, wavHeader } from '../../shared/audio-frames';
import { deleteObject } from '../../shared/aws/s3';
import { readObject, readObjectText } from '../../shared/aws/s3-objects';
import type { SpeechJobRecord } from '../../shared/data/speech-jobs';
import { speechJobReuseKey } from '../../shared/data/speech-jobs';
import {
  deleteIntermediateFile,
  jobFolder,
  recordJobFile,
  writeJobFile,
} from '../../shared/domain/jobs/output-files';
import { runStep, type StepDeps, stepError } from '../../shared/domain/jobs/worker-shell';
import { SPEECH_JOB_TYPE } from '../../shared/domain/speech-jobs';
import { parseSentenceMarks, timingsFromMarks } from '../../shared/domain/speech-timings';
import type { SpeechJobResult } from '../../shared/types/speech-jobs';
import { SPEECH_FORMAT_FILES } from '../../shared/types/speech-voices';
import type { FinalizeInput, JobRef } from './types';

/** Bucket and key of a task's `OutputUri` (`https://s3.<region>.amazonaws.com/<bucket>/<key>`, path style). */
export const objectOfUri = (uri: string): { bucket: string; key: string } => {
  const path = decodeURIComponent(new URL(uri).pathname).replace(/^\//, '');
  const slash = path.indexOf('/');
  if (slash <= 0) throw stepError('OutputMissing', `Not an object URI: ${uri}`);
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
};

/** Seconds of the audio, read from its bytes (no decoder). */
const secondsOf = (format: SpeechJobRecord['format'], data: Buffer) =>
  format === 'wav'
    ? data.length / (PCM_SAMPLE_RATE * 2)
    : format === 'mp3'
      ? mp3Seconds(data)
      : oggOpusSeconds([data]);

/**
 * The audio as stored for the tenant and its duration: Polly's `pcm` becomes a WAV file (`audio.wav`, the
 * header written before the samples, the raw file deleted); mp3 and Ogg Opus stay where Polly wrote them.
 * Either is recorded as a stored object of the company.
 */
const storeAudio = async (job: SpeechJobRecord, ref: JobRef, uri: string, now: Date) => {
  const { bucket, key } = objectOfUri(uri);
  const { contentType } = SPEECH_FORMAT_FILES[job.format];
  const audio = await readObject(bucket, key);
  if (!audio) throw stepError('OutputMissing', 'The speech engine wrote no audio.');
  const data = Buffer.from(audio.body);
  const seconds = secondsOf(job.format, data);
  if (job.format !== 'wav') {
    const file = { bucket, fullPath: key, size: data.length, etag: audio.etag };
    await recordJobFile({ ...file, companyId: ref.companyId, contentType }, now);
    return { ...file, seconds };
  }
  const body = Buffer.concat([wavHeader(data.length), data]);
  const fullPath = `${jobFolder('speechJobs', ref)}audio.wav`;
  const file = await writeJobFile({ companyId: ref.companyId, bucket, fullPath, body, contentType }, now);
  await deleteObject(bucket, key);
  return { ...file, size: body.length, seconds };
};

/**
 * Finalize step: measures the audio, turns the sentence speech marks into the timing file (`timings.json`),
 * records both files as the company's stored objects (downloadable, counted in storage bytes), then moves the
 * job `synthesizing` → `done`, billing its characters with the compute time and writing the reuse entry in
 * the same transaction, and deletes the marks. Error: `OutputMissing`.
 */
export const finalizeStep = (input: FinalizeInput, deps: StepDeps): Promise<JobRef> =>
  runStep(SPEECH_JOB_TYPE, input, deps, async (step) => {
    const job = await step.read(['synthesizing']);
    const marks = objectOfUri(input.marksUri);
    const marksText = await readObjectText(marks.bucket, marks.key);
    if (marksText === undefined) throw stepError('OutputMissing', 'The speech engine wrote no speech marks.');
    const audio = await storeAudio(job, step.ref, input.audioUri, step.now);
    const durationSeconds = Math.round(audio.seconds * 1000) / 1000;
    const sentences = timingsFromMarks(parseSentenceMarks(marksText), durationSeconds * 1000);
    const timings = await writeJobFile(
      {
        companyId: job.companyId,
        bucket: audio.bucket,
        fullPath: `${jobFolder('speechJobs', step.ref)}timings.json`,
        body: JSON.stringify(sentences),
        contentType: 'application/json',
      },
      step.now,
    );
    const result: SpeechJobResult = {
      audio: { bucket: audio.bucket, fullPath: audio.fullPath, size: audio.size, format: job.format },
      timings: { ...timings, sentences: sentences.length },
    };
    await step.complete({
      from: ['synthesizing'],
      set: { result, durationSeconds },
      billedUnits: job.characters,
      // Polly reports no run time of its tasks: the job bills the worker steps' time.
      computeMs: { workers: (input.workerMs ?? 0) + step.elapsed() },
      reuse: {
        key: speechJobReuseKey(job),
        entry: { result, sourceJobId: job.jobId, durationSeconds, createdAt: step.now.toISOString() },
      },
      observed: job,
    });
    await deleteIntermediateFile(marks.bucket, marks.key, job.jobId);
    return step.ref;
  });
