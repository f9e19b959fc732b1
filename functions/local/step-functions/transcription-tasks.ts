import { putObject } from '../../shared/aws/s3';
import { presignRead } from '../../shared/aws/s3-objects';
import type { StartTranscriptionParameters } from '../../workers/transcription/types';
import { createTranscriptionWorker } from '../../workers/transcription/worker';
import { awaitRun } from '../engines';
import { probeWithFfprobe } from '../media-engine';
import { transcribeOutputFromPocketsphinx } from '../recognizer-output';
import { recognise } from '../speech-engine';
import type { TaskOverride } from './machines';

/**
 * Local overrides of the Task states of `statemachines/transcription.asl.json`: the worker steps run the
 * real worker in-process (with ffprobe in place of MediaConvert's Probe API). As Amazon Transcribe does,
 * `StartTranscription` only starts the engine: pocketsphinx runs in the background and writes its words in
 * Transcribe's JSON format where Transcribe would, so the same finalize step reads it. `CheckTranscription`
 * answers like GetTranscriptionJob (`IN_PROGRESS`, `COMPLETED` with the run's `StartTime` and
 * `CompletionTime`, `FAILED`), waiting up to `LOCAL_ENGINE_TIMING.checkWaitMs` (`../engines.ts`) for the run to end so that a short recording needs one check. Stopping the execution aborts the signal,
 * which kills ffmpeg and pocketsphinx.
 */
const worker = createTranscriptionWorker({ probe: probeWithFfprobe });

/** pocketsphinx's own run time of the last transcriptions (the bench subtracts it from a job's time). */
export const recogniserRuns = new Map<string, number>();
/** The engine's whole run (conversion and recognition: the job's media time), by Transcribe job name. */
export const engineRuns = new Map<string, number>();

/** Start and completion in epoch seconds, as Transcribe reports them: the recogniser's run. */
type Timing = { StartTime: number; CompletionTime: number };
type Outcome = ({ status: 'COMPLETED' } & Timing) | { status: 'FAILED'; reason: string };

/** Transcriptions started in this process, by Transcribe job name. */
const runs = new Map<string, { settled?: Outcome; done: Promise<Outcome> }>();

const parseS3 = (uri: string) => {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match?.[1] || !match[2]) throw new Error(`Not an S3 URI: ${uri}`);
  return { bucket: match[1], key: match[2] };
};

const transcribe = async (input: StartTranscriptionParameters, signal: AbortSignal): Promise<Outcome> => {
  const startTime = Date.now() / 1000;
  try {
    const source = parseS3(input.Media.MediaFileUri);
    const { stdout, recogniserMs } = await recognise(await presignRead(source.bucket, source.key), signal);
    signal.throwIfAborted();
    recogniserRuns.set(input.TranscriptionJobName, recogniserMs);
    const output = {
      jobName: input.TranscriptionJobName,
      ...transcribeOutputFromPocketsphinx(stdout, input.LanguageCode ?? 'en-US'),
    };
    const completionTime = Date.now() / 1000;
    engineRuns.set(input.TranscriptionJobName, (completionTime - startTime) * 1000);
    await putObject(input.OutputBucketName, input.OutputKey, JSON.stringify(output), 'application/json');
    return { status: 'COMPLETED', StartTime: startTime, CompletionTime: completionTime };
  } catch (error) {
    return { status: 'FAILED', reason: error instanceof Error ? error.message : String(error) };
  }
};

const startTranscription: TaskOverride = async (input: StartTranscriptionParameters, ctx) => {
  const name = input.TranscriptionJobName;
  if (!runs.has(name)) {
    const run: { settled?: Outcome; done: Promise<Outcome> } = { done: transcribe(input, ctx.signal) };
    run.done = run.done.then((outcome) => {
      run.settled = outcome;
      return outcome;
    });
    runs.set(name, run);
  }
  return { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'IN_PROGRESS' } };
};

const checkTranscription: TaskOverride = async (input: { TranscriptionJobName: string }) => {
  const name = input.TranscriptionJobName;
  const run = runs.get(name);
  const job = (status: string, extra: Record<string, unknown> = {}) => ({
    TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: status, ...extra },
  });
  // A name this process never started (the stack restarted meanwhile) is a job the engine lost.
  if (!run) return job('FAILED', { FailureReason: 'Unknown transcription job' });
  const outcome = run.settled ?? (await awaitRun(run.done));
  if (!outcome) return job('IN_PROGRESS');
  runs.delete(name);
  if (outcome.status === 'FAILED') return job('FAILED', { FailureReason: outcome.reason });
  return job('COMPLETED', { StartTime: outcome.StartTime, CompletionTime: outcome.CompletionTime });
};

export const tasks: Record<string, TaskOverride> = {
  Probe: (input) => worker(input),
  StartTranscription: startTranscription,
  StartTranscriptionIdentifyingLanguage: startTranscription,
  CheckTranscription: checkTranscription,
  Finalize: (input) => worker(input),
  RecordFailure: (input) => worker(input),
};
