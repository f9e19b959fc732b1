import { type SpeechJobRecord, speechJobHasTimings } from '../../data/speech-jobs';
import type { TranscodeJobRecord } from '../../data/transcode-jobs';
import type { TranscriptionJobRecord } from '../../data/transcription-jobs';
import type { SpeechJobFile, SpeechJobStatus } from '../../types/speech-jobs';
import type { SpeechFormat } from '../../types/speech-voices';
import { publicFile, publicJobFields } from './view';

/**
 * Each job type's public view (its GET route, MCP tool, workflow action and the events of its final moves),
 * apart from the type's module so the event dispatcher raises a job's events from the stream without
 * loading the type's enqueue and steps (decision 0065).
 */

/** The job as the tenant sees it: read-only, `output` only when `done`, the worker's lease shown. */
export const toPublicJob = (job: TranscodeJobRecord) => ({
  ...publicJobFields(job),
  preset: job.preset,
  source: publicFile(job.source),
  output: job.status === 'done' && job.output ? publicFile(job.output) : null,
  attempt: job.attempt,
  billedSeconds: job.billedSeconds,
  durationSeconds: job.durationSeconds ?? null,
  leaseUntil: job.leaseUntil ?? null,
});
export type PublicTranscodeJob = ReturnType<typeof toPublicJob>;

/** The job as the tenant sees it: `result` only when `done`. */
export const toPublicTranscription = (job: TranscriptionJobRecord) => ({
  ...publicJobFields(job),
  language: job.language,
  source: publicFile(job.source),
  billedSeconds: job.billedSeconds,
  durationSeconds: job.durationSeconds ?? null,
  result: job.status === 'done' && job.result ? job.result : null,
});
export type PublicTranscription = ReturnType<typeof toPublicTranscription>;

/** The job as the tenant sees it: the engine's envelope, the request's figures, `result` only when `done`. */
export interface PublicSpeechJob extends ReturnType<typeof publicJobFields<SpeechJobStatus>> {
  voiceProfileId: string;
  format: SpeechFormat;
  characters: number;
  timings: boolean;
  billedCharacters: number;
  durationSeconds: number | null;
  result: {
    audio: SpeechJobFile & { size: number; format: SpeechFormat };
    timings: (SpeechJobFile & { sentences: number }) | null;
  } | null;
}

export const toPublicSpeechJob = (job: SpeechJobRecord): PublicSpeechJob => ({
  ...publicJobFields(job),
  voiceProfileId: job.voiceProfileId,
  format: job.format,
  characters: job.characters,
  timings: speechJobHasTimings(job),
  billedCharacters: job.billedSeconds,
  durationSeconds: job.durationSeconds ?? null,
  result:
    job.status === 'done' && job.result
      ? {
          audio: {
            ...publicFile(job.result.audio),
            size: job.result.audio.size,
            format: job.result.audio.format,
          },
          timings: job.result.timings
            ? { ...publicFile(job.result.timings), sentences: job.result.timings.sentences }
            : null,
        }
      : null,
});
