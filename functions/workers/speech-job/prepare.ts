import { headObject, readObjectText } from '../../shared/aws/s3-objects';
import { completeSpeechJob, getSpeechJobReuse, startSynthesizing } from '../../shared/data/speech-jobs';
import { startStepClock } from '../../shared/domain/compute-time';
import { speechJobAttemptFolder } from '../../shared/domain/speech-jobs';
import { env } from '../../shared/env';
import { logger } from '../../shared/logger';
import { DEFAULT_VOICE_PROFILE, VOICE_PROFILES } from '../../shared/types/speech-voices';
import { stepError } from './errors';
import { advance, finishOrGone, LEASE_SECONDS, leaseFrom } from './transitions';
import type { PrepareInput, PrepareOutput, WorkerDeps } from './types';

/**
 * Seconds of the first wait between two GetSpeechSynthesisTask calls (then doubled up to 32 s): Polly takes
 * about a minute for a long text; the local engine answers a check when its run ends, so 1 s there.
 */
export const POLL_SECONDS = { polly: 4, 'espeak-ng': 1 } as const;

/**
 * Prepare step: claims the job (`pending` → `synthesizing`, with the lease), then either finishes it with the
 * stored result of an identical request whose files still exist (billing nothing), or reads the text and
 * returns the parameters of Polly's two tasks (audio, sentence marks), writing into the attempt's folder.
 * Error: `InputMissing` when the text is gone.
 */
export const prepareStep = async (input: PrepareInput, deps: WorkerDeps): Promise<PrepareOutput> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const job = await advance(ref, () =>
    startSynthesizing({
      job: ref,
      leaseUntil: leaseFrom(now, LEASE_SECONDS),
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
      now,
    }),
  );
  const reuse = await getSpeechJobReuse(job);
  if (reuse) {
    const { audio, timings } = reuse.result;
    const [a, t] = await Promise.all([
      headObject(audio.bucket, audio.fullPath),
      headObject(timings.bucket, timings.fullPath),
    ]);
    if (a && t) {
      await finishOrGone(ref.jobId, () =>
        completeSpeechJob({
          job: ref,
          result: reuse.result,
          durationSeconds: reuse.durationSeconds,
          billedCharacters: 0,
          reused: true,
          now,
          observed: job,
        }),
      );
      logger.info('speech job reused', { jobId: ref.jobId, sourceJobId: reuse.sourceJobId });
      return { ...ref, reused: true };
    }
  }
  const text = await readObjectText(job.input.bucket, job.input.fullPath);
  if (text === undefined) throw stepError('InputMissing', 'The text of the job is no longer stored.');
  const voice = VOICE_PROFILES.find((v) => v.id === job.voiceProfileId) ?? DEFAULT_VOICE_PROFILE;
  return {
    ...ref,
    reused: false,
    text,
    synthesis: {
      Engine: voice.polly.engine,
      VoiceId: voice.polly.voiceId,
      OutputFormat: job.format === 'wav' ? 'pcm' : job.format,
      SampleRate: job.format === 'wav' ? '16000' : '22050',
      OutputS3BucketName: job.input.bucket,
      OutputS3KeyPrefix: speechJobAttemptFolder(job),
    },
    pollSeconds: POLL_SECONDS[env().speechEngine],
    workerMs: elapsed(),
  };
};
