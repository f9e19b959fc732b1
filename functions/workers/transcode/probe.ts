import { headObject } from '../../shared/aws/s3-objects';
import { type TranscodeJobRecord, transcodeReuseKey } from '../../shared/data/transcode-jobs';
import { companyLimits } from '../../shared/domain/company-limits';
import { jobFolder } from '../../shared/domain/jobs/output-files';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import {
  mediaConvertSettings,
  presetContentType,
  presetExtension,
} from '../../shared/domain/transcode-presets';
import { transcodeJobs } from '../../shared/domain/transcodes';
import { logger } from '../../shared/logger';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

/** Seconds a step holds the job: the probe, the conversion (its machine's timeout), the finalize. */
export const LEASE_SECONDS = { probe: 300, transcode: 7200 + 600, finalize: 300 } as const;

export const outputPath = (job: Pick<TranscodeJobRecord, 'companyId' | 'jobId' | 'attempt' | 'preset'>) =>
  `${jobFolder('transcodes', job)}output.${presetExtension(job.preset)}`;

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
export const probeStep = (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> =>
  runStep(transcodeJobs, input, deps, async (step) => {
    const { ref } = step;
    const job = await step.advance({
      from: ['pending'],
      to: 'probing',
      leaseSeconds: LEASE_SECONDS.probe,
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
    });
    const { source } = job;
    // Independent reads in parallel: the source as stored now, and the plan's limits.
    const [head, limits] = await Promise.all([
      headObject(source.bucket, source.fullPath),
      companyLimits(ref.companyId),
    ]);
    if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');

    // Reuse: the same content (ETag and size) already converted to this preset, with its output still stored.
    const reuseKey = transcodeReuseKey({ preset: job.preset, size: head.size, etag: head.etag });
    const reuse = await transcodeJobs.lifecycle.getReuse(ref.companyId, reuseKey);
    if (reuse && (await headObject(reuse.output.bucket, reuse.output.fullPath))) {
      await step.completeReused({ from: ['probing'], set: { output: reuse.output }, observed: job });
      logger.info('transcode reused', { jobId: ref.jobId, sourceJobId: reuse.sourceJobId });
      return { ...ref, reused: true };
    }

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
    await step.advance({
      from: ['probing'],
      to: 'transcoding',
      leaseSeconds: LEASE_SECONDS.transcode,
      percent: 0,
      set: { durationSeconds: media.durationSeconds, hasVideo: media.hasVideo },
    });
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
        companyId: ref.companyId,
        jobId: ref.jobId,
        attempt: String(ref.attempt),
        preset: job.preset,
        hasVideo: String(media.hasVideo),
        durationSeconds: String(media.durationSeconds),
      },
      workerMs: step.elapsed(),
    };
  });
