import { readObjectText } from '../../shared/aws/s3-objects';
import {
  type SpeechJobReuseEntry,
  speechJobHasTimings,
  speechJobReuseKey,
} from '../../shared/data/speech-jobs';
import { speechEngine } from '../../shared/domain/engines';
import { jobFolder } from '../../shared/domain/jobs/output-files';
import { runStep, type StepDeps, stepError } from '../../shared/domain/jobs/worker-shell';
import { SPEECH_JOB_TYPE, speechJobResultExists, speechJobTextPath } from '../../shared/domain/speech-jobs';
import { env } from '../../shared/env';
import { DEFAULT_VOICE_PROFILE, VOICE_PROFILES } from '../../shared/types/speech-voices';
import type { PrepareInput, PrepareOutput } from './types';

/** The lease of a synthesis: the longest one (100,000 characters) with room to spare. */
export const LEASE_SECONDS = 3 * 3600;

/**
 * Prepare step: claims the job (`pending` → `synthesizing`, with the lease), then either finishes it with the
 * stored result of an identical request finished meanwhile whose files still exist (billing nothing), or
 * reads the text and returns the parameters of Polly's tasks (the audio, and the sentence speech marks unless
 * the job was asked without timings: `timings`), writing into the attempt's folder. Error: `InputMissing` when
 * the text is gone.
 */
export const prepareStep = (input: PrepareInput, deps: StepDeps): Promise<PrepareOutput> =>
  runStep(SPEECH_JOB_TYPE, input, deps, async (step) => {
    const job = await step.advance({
      from: ['pending'],
      to: 'synthesizing',
      leaseSeconds: LEASE_SECONDS,
      percent: 0,
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
    });
    const bucket = env().bucketName;
    // The text is read with the reuse entry (unused when the job is reused).
    const [reuse, text] = await Promise.all([
      SPEECH_JOB_TYPE.lifecycle.getReuse(job.companyId, speechJobReuseKey(job)),
      readObjectText(bucket, speechJobTextPath(job)),
    ]);
    const set = ({ result, durationSeconds }: SpeechJobReuseEntry) => ({ result, durationSeconds });
    if (await step.reuseStored(reuse, speechJobResultExists, { from: 'synthesizing', set })) {
      return { ...step.ref, reused: true };
    }
    if (text === undefined) throw stepError('InputMissing', 'The text of the job is no longer stored.');
    const voice = VOICE_PROFILES.find((v) => v.id === job.voiceProfileId) ?? DEFAULT_VOICE_PROFILE;
    return {
      ...step.ref,
      reused: false,
      timings: speechJobHasTimings(job),
      text,
      synthesis: {
        Engine: voice.polly.engine,
        VoiceId: voice.polly.voiceId,
        OutputFormat: job.format === 'wav' ? 'pcm' : job.format,
        SampleRate: job.format === 'wav' ? '16000' : '22050',
        OutputS3BucketName: bucket,
        OutputS3KeyPrefix: jobFolder('speechJobs', step.ref),
      },
      pollSeconds: speechEngine().jobPollSeconds,
      workerMs: step.elapsed(),
    };
  });
