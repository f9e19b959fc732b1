import { headObject } from '../../shared/aws/s3-objects';
import {
  completeReusedTranscriptionJob,
  getTranscriptionReuse,
  recordTranscriptionProbe,
  startTranscribing,
  type TranscriptionJobRecord,
} from '../../shared/data/transcription-jobs';
import { startStepClock } from '../../shared/domain/compute-time';
import { transcriptionExecutionName, transcriptionLimits } from '../../shared/domain/transcriptions';
import { env } from '../../shared/env';
import { logger } from '../../shared/logger';
import { companyObjectPrefix } from '../../shared/types/object-prefixes';
import { stepError } from './errors';
import { advance, finishOrGone, LEASE_SECONDS, leaseFrom } from './transitions';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

/**
 * Seconds between two GetTranscriptionJob calls: Transcribe takes minutes, so every 15 s costs little and
 * adds at most 15 s; the local engine is checked every second.
 */
export const POLL_SECONDS = { transcribe: 15, pocketsphinx: 1 } as const;

/** Folder of an attempt's files: the engine's JSON and the transcript files. */
export const resultFolder = (job: Pick<TranscriptionJobRecord, 'companyId' | 'jobId' | 'attempt'>) =>
  `${companyObjectPrefix(job.companyId, 'transcriptions')}${job.jobId}/a${job.attempt}/`;

/**
 * Probe step: claims the job (`pending` → `transcribing`, with the lease), then either finishes it with the
 * stored result of the same content transcribed before in the same language (billing nothing), or checks
 * the plan's size and duration limits and that the source has audio, and returns the parameters of the
 * engine's run. Errors: `SourceMissing`, `SourceTooLarge`, `SourceTooLong`, `SourceNoAudio`, and
 * `SourceUnreadable` from the prober.
 */
export const probeStep = async (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const job = await advance(ref, () =>
    startTranscribing({
      job: ref,
      leaseUntil: leaseFrom(now, LEASE_SECONDS.probe),
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
      now,
    }),
  );
  const { source, language } = job;
  const head = await headObject(source.bucket, source.fullPath);
  if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');

  // Reuse: the same content (ETag and size) transcribed in this language, with its JSON file still stored.
  const content = { language, size: head.size, etag: head.etag };
  const reuse = await getTranscriptionReuse(ref.companyId, content);
  if (reuse && (await headObject(reuse.result.files.json.bucket, reuse.result.files.json.fullPath))) {
    await finishOrGone(ref.jobId, () =>
      completeReusedTranscriptionJob({
        job: ref,
        result: reuse.result,
        durationSeconds: reuse.durationSeconds,
        now,
        observed: job,
      }),
    );
    logger.info('transcription reused', { jobId: ref.jobId, sourceJobId: reuse.sourceJobId });
    return { ...ref, reused: true };
  }

  const limits = await transcriptionLimits(ref.companyId);
  if (head.size > limits.transcriptionMaxSourceBytes) {
    throw stepError(
      'SourceTooLarge',
      `The source is larger than ${limits.transcriptionMaxSourceBytes} bytes.`,
    );
  }
  const media = await deps.probe(source);
  if (!media.hasAudio) throw stepError('SourceNoAudio', 'The source has no audio stream.');
  if (media.durationSeconds > limits.transcriptionMaxDurationSeconds) {
    throw stepError(
      'SourceTooLong',
      `The source is longer than ${limits.transcriptionMaxDurationSeconds} seconds.`,
    );
  }
  await advance(ref, () =>
    recordTranscriptionProbe({
      job: ref,
      leaseUntil: leaseFrom(now, LEASE_SECONDS.transcribe),
      durationSeconds: media.durationSeconds,
      now,
    }),
  );
  const engineOutput = { bucket: source.bucket, fullPath: `${resultFolder(job)}engine.json` };
  return {
    ...ref,
    reused: false,
    source: { size: head.size, etag: head.etag },
    durationSeconds: media.durationSeconds,
    engineOutput,
    transcribe: {
      TranscriptionJobName: transcriptionExecutionName(ref.jobId, ref.attempt),
      Media: { MediaFileUri: `s3://${source.bucket}/${source.fullPath}` },
      OutputBucketName: engineOutput.bucket,
      OutputKey: engineOutput.fullPath,
      ...(language === 'auto' ? { IdentifyLanguage: true } : { LanguageCode: language }),
    },
    pollSeconds: POLL_SECONDS[env().transcriptionEngine],
    workerMs: elapsed(),
  };
};
