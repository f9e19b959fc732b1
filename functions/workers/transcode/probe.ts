import { headObject } from '../../shared/aws/s3-objects';
import {
  claimTranscodeJob,
  completeReusedTranscodeJob,
  startTranscoding,
  type TranscodeJobRecord,
} from '../../shared/data/transcode-jobs';
import { getTranscodeReuse } from '../../shared/data/transcode-reuse';
import { startStepClock } from '../../shared/domain/compute-time';
import {
  mediaConvertSettings,
  presetContentType,
  presetExtension,
} from '../../shared/domain/transcode-presets';
import { transcodeLimits } from '../../shared/domain/transcodes';
import { logger } from '../../shared/logger';
import { companyObjectPrefix } from '../../shared/types/object-prefixes';
import { stepError } from './errors';
import { advance, finishOrGone, LEASE_SECONDS, leaseFrom } from './transitions';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

export const outputPath = (job: Pick<TranscodeJobRecord, 'companyId' | 'jobId' | 'attempt' | 'preset'>) =>
  `${companyObjectPrefix(job.companyId, 'transcodes')}${job.jobId}/a${job.attempt}/output.${presetExtension(job.preset)}`;

/**
 * The machine's name from its execution ARN (`arn:...:execution:<machine>:<id>`), given to MediaConvert so
 * the progress rule matches only jobs of this machine.
 */
const stateMachineOf = (executionArn: string | undefined): { stateMachine?: string } => {
  const parts = executionArn?.split(':') ?? [];
  return parts[5] === 'execution' && parts[6] ? { stateMachine: parts[6] } : {};
};

/**
 * Probe step: claims the job (`pending` → `probing`), then either finishes it with the stored output of the
 * same content converted before (billing nothing), or checks the plan's size and duration limits, moves it
 * to `transcoding` and returns the media engine's input. Errors: `SourceMissing`, `SourceTooLarge`,
 * `SourceTooLong`, and `SourceUnreadable` from the prober.
 */
export const probeStep = async (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const { companyId, jobId, attempt } = ref;
  const job = await advance(ref, 'probing', () =>
    claimTranscodeJob({
      job: ref,
      leaseUntil: leaseFrom(now, LEASE_SECONDS.probe),
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
      now,
    }),
  );
  const { source } = job;

  const head = await headObject(source.bucket, source.fullPath);
  if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');

  // Reuse: the same content (ETag and size) already converted to this preset, with its output still stored.
  const reuse = await getTranscodeReuse(companyId, { preset: job.preset, size: head.size, etag: head.etag });
  if (reuse && (await headObject(reuse.output.bucket, reuse.output.fullPath))) {
    await finishOrGone(jobId, () =>
      completeReusedTranscodeJob({ job: ref, output: reuse.output, now, observed: job }),
    );
    logger.info('transcode reused', { jobId, sourceJobId: reuse.sourceJobId });
    return { ...ref, reused: true };
  }

  const limits = await transcodeLimits(companyId);
  if (head.size > limits.transcodeMaxSourceBytes) {
    throw stepError('SourceTooLarge', `The source is larger than ${limits.transcodeMaxSourceBytes} bytes.`);
  }
  const media = await deps.probe(source);
  if (media.durationSeconds > limits.transcodeMaxDurationSeconds) {
    throw stepError(
      'SourceTooLong',
      `The source is longer than ${limits.transcodeMaxDurationSeconds} seconds.`,
    );
  }
  await advance(ref, 'transcoding', () =>
    startTranscoding({
      job: ref,
      leaseUntil: leaseFrom(now, LEASE_SECONDS.transcode),
      durationSeconds: media.durationSeconds,
      hasVideo: media.hasVideo,
      now,
    }),
  );
  const fullPath = outputPath(job);
  const destination = `s3://${source.bucket}/${fullPath.replace(/\.[^.]+$/, '')}`;
  return {
    ...ref,
    reused: false,
    source: { size: head.size, etag: head.etag },
    durationSeconds: media.durationSeconds,
    output: { bucket: source.bucket, fullPath, contentType: presetContentType(job.preset, media.hasVideo) },
    settings: mediaConvertSettings(
      job.preset,
      media.hasVideo,
      `s3://${source.bucket}/${source.fullPath}`,
      destination,
    ),
    userMetadata: {
      ...stateMachineOf(input.executionArn),
      companyId,
      jobId,
      attempt: String(attempt),
      preset: job.preset,
      hasVideo: String(media.hasVideo),
      durationSeconds: String(media.durationSeconds),
    },
    workerMs: elapsed(),
  };
};
