import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { putObject } from '../../shared/aws/s3';
import { uploadFile } from '../../shared/aws/s3-objects';
import { VOICE_PROFILES } from '../../shared/types/speech-voices';
import type { SynthesisParameters } from '../../workers/speech-job/types';
import { createSpeechJobWorker } from '../../workers/speech-job/worker';
import { awaitRun } from '../engines';
import { type LocalOutputFormat, synthesizeLongText } from '../long-speech';
import { espeakVoiceOf } from '../speech-voices';
import type { TaskOverride } from './machines';

/**
 * Local overrides of the Task states of `statemachines/speech-job.asl.json`: the worker steps run the real
 * worker in-process. As Polly does, `StartAudioSynthesis` only starts the engine (`long-speech.ts`: espeak-ng
 * per sentence on every core, ffmpeg joining), which uploads the audio where Polly would
 * (`<OutputS3KeyPrefix><TaskId>.<extension>`); `StartMarksSynthesis` is the second task, whose sentence marks
 * come from the same run (measured durations) and are written as `<prefix><TaskId>.marks`; a job without
 * timings starts no marks task, so its marks are dropped once its audio is checked. The checks answer
 * like GetSpeechSynthesisTask (`inProgress`, `completed` with the `OutputUri`, `failed`), waiting up to
 * `LOCAL_ENGINE_TIMING.checkWaitMs` for the run to end. Stopping the execution aborts the signal, which kills espeak-ng and ffmpeg.
 */
const worker = createSpeechJobWorker();

/** The engine's own run time of the last jobs, by audio task id (the bench subtracts it from a job's time). */
export const engineRuns = new Map<string, number>();

type Outcome = { status: 'completed'; uri: string } | { status: 'failed'; reason: string };
interface Run {
  settled?: Outcome;
  done: Promise<Outcome>;
  /** An audio run's key in `marksOf`: its marks, unless the marks task took them. */
  marksKey?: string;
}

/** Tasks started in this process, by task id; the marks of an audio run, by its output folder and text. */
const runs = new Map<string, Run>();
const marksOf = new Map<string, Promise<string>>();

const EXTENSIONS: Record<LocalOutputFormat, { extension: string; contentType: string }> = {
  mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  ogg_opus: { extension: 'ogg', contentType: 'audio/ogg' },
  pcm: { extension: 'pcm', contentType: 'audio/pcm' },
};

type StartInput = Omit<SynthesisParameters, 'OutputFormat' | 'SampleRate'> & {
  OutputFormat: LocalOutputFormat | 'json';
  Text: string;
};

const outputUri = (bucket: string, key: string) => `https://s3.local.amazonaws.com/${bucket}/${key}`;
const runKey = (input: StartInput) => `${input.OutputS3BucketName}/${input.OutputS3KeyPrefix}`;

const track = (done: Promise<Outcome>, marksKey?: string): Run => {
  const entry: Run = { done, ...(marksKey ? { marksKey } : {}) };
  entry.done = done.then((outcome) => {
    entry.settled = outcome;
    return outcome;
  });
  return entry;
};

const failed = (error: unknown): Outcome => ({
  status: 'failed',
  reason: error instanceof Error ? error.message : String(error),
});

const synthesizeAudio = async (input: StartInput, taskId: string, signal: AbortSignal) => {
  const format = input.OutputFormat as LocalOutputFormat;
  const voice = VOICE_PROFILES.find((v) => v.polly.voiceId === input.VoiceId);
  if (!voice) throw new Error(`Unknown voice ${input.VoiceId}`);
  const dir = await mkdtemp(join(tmpdir(), 'speech-job-'));
  try {
    const { audio, marks, engineMs } = await synthesizeLongText({
      text: input.Text,
      voice: espeakVoiceOf(voice),
      format,
      dir,
      signal,
    });
    const { extension, contentType } = EXTENSIONS[format];
    const key = `${input.OutputS3KeyPrefix}${taskId}.${extension}`;
    await uploadFile(input.OutputS3BucketName, key, audio, contentType);
    engineRuns.set(taskId, engineMs);
    return { key, marks };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const startSynthesis: TaskOverride = async (input: StartInput, ctx) => {
  const taskId = randomUUID();
  const bucket = input.OutputS3BucketName;
  if (input.OutputFormat !== 'json') {
    const audio = synthesizeAudio(input, taskId, ctx.signal);
    const marks = audio.then((a) => a.marks);
    // Handled here too: a job canceled between the two starts never asks for its marks.
    marks.catch(() => undefined);
    marksOf.set(runKey(input), marks);
    runs.set(
      taskId,
      track(
        audio.then((a) => ({ status: 'completed', uri: outputUri(bucket, a.key) }) as const, failed),
        runKey(input),
      ),
    );
  } else {
    const marks = marksOf.get(runKey(input));
    marksOf.delete(runKey(input));
    const key = `${input.OutputS3KeyPrefix}${taskId}.marks`;
    const written = marks
      ? marks.then(async (text) => {
          await putObject(bucket, key, text, 'application/x-json-stream');
          return { status: 'completed', uri: outputUri(bucket, key) } as const;
        }, failed)
      : Promise.resolve(failed(new Error('No audio task of this text was started')));
    runs.set(taskId, track(written));
  }
  return { SynthesisTask: { TaskId: taskId, TaskStatus: 'scheduled' } };
};

const checkSynthesis: TaskOverride = async (input: { TaskId: string }) => {
  const run = runs.get(input.TaskId);
  const task = (status: string, extra: Record<string, unknown> = {}) => ({
    SynthesisTask: { TaskId: input.TaskId, TaskStatus: status, ...extra },
  });
  // A task this process never started (the stack restarted meanwhile) is one the engine lost.
  if (!run) return task('failed', { TaskStatusReason: 'Unknown synthesis task', OutputUri: '' });
  const outcome = run.settled ?? (await awaitRun(run.done));
  if (!outcome) return task('inProgress', { OutputUri: '' });
  runs.delete(input.TaskId);
  // The marks task, when the job has one, started before this check: marks left behind are no one's.
  if (run.marksKey) marksOf.delete(run.marksKey);
  if (outcome.status === 'failed') return task('failed', { TaskStatusReason: outcome.reason, OutputUri: '' });
  return task('completed', { OutputUri: outcome.uri });
};

export const tasks: Record<string, TaskOverride> = {
  Prepare: (input) => worker(input),
  StartAudioSynthesis: startSynthesis,
  StartMarksSynthesis: startSynthesis,
  CheckAudioSynthesis: checkSynthesis,
  CheckMarksSynthesis: checkSynthesis,
  Finalize: (input) => worker(input),
  RecordFailure: (input) => worker(input),
};
