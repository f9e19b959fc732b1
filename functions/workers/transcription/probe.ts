import { headObject } from '../../shared/aws/s3-objects';
import { transcriptionReuseKey } from '../../shared/data/transcription-jobs';
import { companyLimits } from '../../shared/domain/company-limits';
import { jobExecutionName } from '../../shared/domain/jobs/enqueue';
import { jobFolder } from '../../shared/domain/jobs/output-files';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import { transcriptionJobs } from '../../shared/domain/transcriptions';
import { env } from '../../shared/env';
import { logger } from '../../shared/logger';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

/**
 * Seconds between two GetTranscriptionJob calls: Transcribe takes minutes, so every 15 s costs little and
 * adds at most 15 s; the local engine is checked every second.
 */
export const POLL_SECONDS = { transcribe: 15, pocketsphinx: 1 } as const;

/** Seconds a step holds the job: the probe, the engine's run (its machine's timeout), the finalize. */
export const LEASE_SECONDS = { probe: 300, transcribe: 4 * 3600 + 900, finalize: 300 } as const;

/**
 * Probe step: claims the job (`pending` → `transcribing`, with the lease), then either finishes it with the
 * stored result of the same content transcribed before in the same language (billing nothing), or checks
 * the plan's size and duration limits and that the source has audio, and returns the parameters of the
 * engine's run. Errors: `SourceMissing`, `SourceTooLarge`, `SourceTooLong`, `SourceNoAudio`, and
 * `SourceUnreadable` from the prober.
 */
export const probeStep = (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> =>
  runStep(transcriptionJobs, input, deps, async (step) => {
    const { ref } = step;
    const job = await step.advance({
      from: ['pending'],
      to: 'transcribing',
      leaseSeconds: LEASE_SECONDS.probe,
      percent: 0,
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
    });
    const { source, language } = job;
    // Independent reads in parallel: the source as stored now, and the plan's limits.
    const [head, limits] = await Promise.all([
      headObject(source.bucket, source.fullPath),
      companyLimits(ref.companyId),
    ]);
    if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');

    // Reuse: the same content (ETag and size) transcribed in this language, with its JSON file still stored.
    const reuseKey = transcriptionReuseKey({ language, size: head.size, etag: head.etag });
    const reuse = await transcriptionJobs.lifecycle.getReuse(ref.companyId, reuseKey);
    if (reuse && (await headObject(reuse.result.files.json.bucket, reuse.result.files.json.fullPath))) {
      await step.completeReused({
        from: ['transcribing'],
        set: { result: reuse.result, durationSeconds: reuse.durationSeconds },
        observed: job,
      });
      logger.info('transcription reused', { jobId: ref.jobId, sourceJobId: reuse.sourceJobId });
      return { ...ref, reused: true };
    }

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
    await step.advance({
      from: ['transcribing'],
      to: 'transcribing',
      leaseSeconds: LEASE_SECONDS.transcribe,
      percent: 10,
      set: { durationSeconds: media.durationSeconds },
    });
    const engineOutput = {
      bucket: source.bucket,
      fullPath: `${jobFolder('transcriptions', ref)}engine.json`,
    };
    return {
      ...ref,
      reused: false,
      source: { size: head.size, etag: head.etag },
      durationSeconds: media.durationSeconds,
      engineOutput,
      transcribe: {
        TranscriptionJobName: jobExecutionName(ref.jobId, ref.attempt),
        Media: { MediaFileUri: `s3://${source.bucket}/${source.fullPath}` },
        OutputBucketName: engineOutput.bucket,
        OutputKey: engineOutput.fullPath,
        ...(language === 'auto' ? { IdentifyLanguage: true } : { LanguageCode: language }),
      },
      pollSeconds: POLL_SECONDS[env().transcriptionEngine],
      workerMs: step.elapsed(),
    };
  });
