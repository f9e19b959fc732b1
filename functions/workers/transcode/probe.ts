import type { TranscodeJobRecord } from '../../shared/data/transcode-jobs';
import { transcodeReuseKey } from '../../shared/data/transcode-jobs';
import { jobFolder } from '../../shared/domain/jobs/output-files';
import { claimAndProbeSource } from '../../shared/domain/jobs/source-step';
import { handoverTo, runStep, stateMachineOf } from '../../shared/domain/jobs/worker-shell';
import {
  fitsExpress,
  mediaConvertSettings,
  presetContentType,
  presetExtension,
  transcodeEngine,
} from '../../shared/domain/transcode-presets';
import { transcodeJobs } from '../../shared/domain/transcodes';
import type { ProbeInput, ProbeOutput, WorkerDeps } from './types';

/** Seconds a step holds the job: the probe, the conversion and finalize (its machine's timeout; Express: 5 min). */
export const LEASE_SECONDS = { probe: 300, transcode: 7200 + 600, express: 300 } as const;

export const outputPath = (job: Pick<TranscodeJobRecord, 'companyId' | 'jobId' | 'attempt' | 'preset'>) =>
  `${jobFolder('transcodes', job)}output.${presetExtension(job.preset)}`;

/**
 * Probe step: the engine's source step (`pending` → `probing`, reuse of the same content converted to the
 * same preset, size and duration limits), then `probing` → `transcoding` with the media engine's input (or, on
 * the Express audio machine, the Standard execution to hand a source beyond `EXPRESS_BOUNDS` to: 0046).
 */
export const probeStep = (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> =>
  runStep(transcodeJobs, input, deps, async (step) => {
    const { ref } = step;
    const probed = await claimAndProbeSource(step, {
      input,
      claim: {
        from: ['pending'],
        to: 'probing',
        leaseSeconds: LEASE_SECONDS.probe,
      },
      reuse: {
        key: (content, job) => transcodeReuseKey({ preset: job.preset, ...content }),
        file: (entry) => entry.output,
        set: (entry) => ({ output: entry.output }),
      },
      limits: (l) => ({ bytes: l.transcodeMaxSourceBytes, seconds: l.transcodeMaxDurationSeconds }),
      probe: deps.probe,
    });
    if (probed.reused) return { ...ref, reused: true };
    const { job, head, media } = probed;
    const { source } = job;
    const content = { bytes: head.size, durationSeconds: media.durationSeconds };
    const engine = transcodeEngine(job.preset, content);
    // On the Express audio machine, a source beyond its bounds goes on in the Standard execution the job records.
    const express = input.handoff !== undefined && fitsExpress(job.preset, content);
    const handover =
      input.handoff && !express ? handoverTo(input.handoff, ref, input.enqueued?.source) : undefined;
    const found = { hasVideo: media.hasVideo, engine };
    const deferred = express && engine === 'ffmpeg'; // Left `probing`: ConvertAudio or Finalize moves it (0055).
    if (!deferred)
      await step.advance({
        from: ['probing'],
        to: 'transcoding',
        leaseSeconds: express ? LEASE_SECONDS.express : LEASE_SECONDS.transcode,
        percent: 0,
        ...(handover ? { executionArn: handover.executionArn } : {}),
        set: { durationSeconds: media.durationSeconds, ...found },
      });
    if (handover) return { ...ref, reused: false, handoff: handover.handoff };
    const fullPath = outputPath(job);
    const output = {
      bucket: source.bucket,
      fullPath,
      contentType: presetContentType(job.preset, media.hasVideo),
    };
    const destination = `s3://${source.bucket}/${fullPath.replace(/\.[^.]+$/, '')}`;
    return {
      ...ref,
      reused: false,
      source: { size: head.size, etag: head.etag },
      durationSeconds: media.durationSeconds,
      output,
      engine,
      ...(engine === 'ffmpeg'
        ? {
            conversion: {
              preset: job.preset,
              source: { bucket: source.bucket, fullPath: source.fullPath },
              output,
              durationSeconds: media.durationSeconds,
              ...(deferred ? { probed: found } : {}),
            },
          }
        : {
            settings: mediaConvertSettings(
              job.preset,
              media.hasVideo,
              `s3://${source.bucket}/${source.fullPath}`,
              destination,
            ),
          }),
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
