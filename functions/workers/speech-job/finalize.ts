import { audioSeconds, wavHeader } from '../../shared/audio-frames';
import { objectOfUrl, readObject, readObjectText } from '../../shared/aws/s3-objects';
import { type SpeechJobRecord, speechJobHasTimings, speechJobReuseKey } from '../../shared/data/speech-jobs';
import {
  deleteIntermediateFile,
  type JobOutputFile,
  jobFileOf,
  jobFolder,
  writeJobFile,
} from '../../shared/domain/jobs/output-files';
import { runStep, type StepDeps, stepError } from '../../shared/domain/jobs/worker-shell';
import { SPEECH_JOB_TYPE } from '../../shared/domain/speech-jobs';
import { parseSentenceMarks, timingsFromMarks } from '../../shared/domain/speech-timings';
import type { SpeechJobResult } from '../../shared/types/speech-jobs';
import { SPEECH_FORMAT_FILES } from '../../shared/types/speech-voices';
import type { FinalizeInput, JobRef } from './types';

/** Bucket and key of a task's `OutputUri` (path style). */
const objectOfUri = (uri: string) => {
  const object = objectOfUrl(uri);
  if (!object) throw stepError('OutputMissing', `Not an object URI: ${uri}`);
  return object;
};

/**
 * The audio as stored for the tenant: Polly's `pcm` becomes a WAV file (`audio.wav`, the header before the
 * samples; the raw file is deleted once the job is done); mp3 and Ogg Opus stay where Polly wrote them.
 */
const storeAudio = async (
  job: SpeechJobRecord,
  ref: JobRef,
  { bucket, key }: { bucket: string; key: string },
  audio: { body: Uint8Array; etag: string },
  now: Date,
): Promise<JobOutputFile> => {
  const { contentType } = SPEECH_FORMAT_FILES[job.format];
  const data = Buffer.from(audio.body);
  if (job.format !== 'wav') {
    const file = { bucket, fullPath: key, size: data.length, etag: audio.etag };
    return { ...file, contentType, createdAt: now.toISOString() };
  }
  const body = Buffer.concat([wavHeader(data.length), data]);
  return writeJobFile(
    { bucket, fullPath: `${jobFolder('speechJobs', ref)}audio.wav`, body, contentType },
    now,
  );
};

/** The timing file from the sentence speech marks (`timings.json` in the attempt's folder), as a job file. */
const storeTimings = (
  ref: JobRef,
  bucket: string,
  marksText: string,
  durationMs: number,
  now: Date,
): Promise<{ file: JobOutputFile; sentences: number }> => {
  const sentences = timingsFromMarks(parseSentenceMarks(marksText), durationMs);
  return writeJobFile(
    {
      bucket,
      fullPath: `${jobFolder('speechJobs', ref)}timings.json`,
      body: JSON.stringify(sentences),
      contentType: 'application/json',
    },
    now,
  ).then((file) => ({ file, sentences: sentences.length }));
};

/**
 * Finalize step: measures the audio, turns the sentence speech marks into the timing file (`timings.json`;
 * none for a job without timings, whose machine ran no marks task: `marksUri` null), then moves the job
 * `synthesizing` → `done`, recording its files as the company's stored objects (downloadable, counted in
 * storage bytes), billing its characters with the compute time and writing the reuse entry in the same
 * transaction, and deletes the marks (and Polly's raw `pcm`). Error: `OutputMissing`.
 */
export const finalizeStep = (input: FinalizeInput, deps: StepDeps): Promise<JobRef> =>
  runStep(SPEECH_JOB_TYPE, input, deps, async (step) => {
    const marks = input.marksUri ? objectOfUri(input.marksUri) : undefined;
    const engineAudio = objectOfUri(input.audioUri);
    // The job, the marks and the audio are read at once, and the files written at once.
    const [job, marksText, audioBytes] = await Promise.all([
      step.read(['synthesizing']),
      marks ? readObjectText(marks.bucket, marks.key) : undefined,
      readObject(engineAudio.bucket, engineAudio.key),
    ]);
    if (marks && marksText === undefined)
      throw stepError('OutputMissing', 'The speech engine wrote no speech marks.');
    if (speechJobHasTimings(job) && !marks)
      throw stepError('OutputMissing', 'The job has timings but no speech marks task ran.');
    if (!audioBytes) throw stepError('OutputMissing', 'The speech engine wrote no audio.');
    const seconds = audioSeconds(job.format, audioBytes.body);
    const durationSeconds = Math.round(seconds * 1000) / 1000;
    const [audio, timings] = await Promise.all([
      storeAudio(job, step.ref, engineAudio, audioBytes, step.now),
      marksText === undefined
        ? undefined
        : storeTimings(step.ref, engineAudio.bucket, marksText, durationSeconds * 1000, step.now),
    ]);
    const result: SpeechJobResult = {
      audio: { bucket: audio.bucket, fullPath: audio.fullPath, size: audio.size, format: job.format },
      ...(timings ? { timings: { ...jobFileOf(timings.file), sentences: timings.sentences } } : {}),
    };
    await step.complete({
      from: ['synthesizing'],
      set: { result, durationSeconds },
      billedUnits: job.characters,
      files: timings ? [audio, timings.file] : [audio],
      // Polly reports no run time of its tasks: the job bills the worker steps' time.
      computeMs: { workers: (input.workerMs ?? 0) + step.elapsed() },
      reuse: {
        key: speechJobReuseKey(job),
        entry: { result, sourceJobId: job.jobId, durationSeconds, createdAt: step.now.toISOString() },
      },
    });
    const raw = job.format === 'wav' ? [engineAudio] : [];
    const intermediate = [...(marks ? [marks] : []), ...raw];
    await Promise.all(intermediate.map((f) => deleteIntermediateFile(f.bucket, f.key, job.jobId)));
    return step.ref;
  });
