import { transcriptionReuseKey } from '../../shared/data/transcription-jobs';
import { transcriptionEngine } from '../../shared/domain/engines';
import { jobExecutionName } from '../../shared/domain/jobs/enqueue';
import { jobFolder } from '../../shared/domain/jobs/output-files';
import { claimAndProbeSource } from '../../shared/domain/jobs/source-step';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import { transcriptionJobs } from '../../shared/domain/transcriptions';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

/** Seconds a step holds the job: the engine's run (its machine's timeout), the finalize. */
export const LEASE_SECONDS = { transcribe: 4 * 3600 + 900, finalize: 300 } as const;

/**
 * Probe step: the engine's source step (the job read while `pending`, reuse of the same content transcribed
 * in the same language, size and duration limits, and a source with audio: else `SourceNoAudio`), then one
 * move `pending` → `transcribing` with the duration, the execution and the engine's lease, and the parameters
 * of the engine's run. A job reused or refused is finished from `pending` (decision 0055).
 */
export const probeStep = (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> =>
  runStep(transcriptionJobs, input, deps, async (step) => {
    const { ref } = step;
    const probed = await claimAndProbeSource(step, {
      input,
      // Read, not moved: the move after the probe is the step's one write (0055).
      claim: { read: ['pending', 'transcribing'] },
      reuse: {
        key: (content, job) => transcriptionReuseKey({ language: job.language, ...content }),
        file: (entry) => entry.result.files.json,
        set: (entry) => ({ result: entry.result, durationSeconds: entry.durationSeconds }),
      },
      limits: (l) => ({ bytes: l.transcriptionMaxSourceBytes, seconds: l.transcriptionMaxDurationSeconds }),
      probe: deps.probe,
      accept: (media) => {
        if (!media.hasAudio) throw stepError('SourceNoAudio', 'The source has no audio stream.');
      },
    });
    if (probed.reused) return { ...ref, reused: true };
    const { job, head, media } = probed;
    const { source, language } = job;
    await step.advance({
      from: ['pending', 'transcribing'],
      to: 'transcribing',
      leaseSeconds: LEASE_SECONDS.transcribe,
      percent: 10,
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
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
      pollSeconds: transcriptionEngine().pollSeconds,
      workerMs: step.elapsed(),
    };
  });
