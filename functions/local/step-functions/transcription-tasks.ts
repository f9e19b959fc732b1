import { putObject } from '../../shared/aws/s3';
import { presignRead } from '../../shared/aws/s3-objects';
import { transcribeOutputFromPocketsphinx } from '../../shared/domain/transcripts';
import type { StartTranscriptionParameters } from '../../workers/transcription/types';
import { createTranscriptionWorker } from '../../workers/transcription/worker';
import { probeWithFfprobe } from '../media-engine';
import { recognise } from '../speech-engine';
import type { TaskOverride } from './machines';

/**
 * Local overrides of the Task states of `statemachines/transcription.asl.json`: the worker steps run the
 * real worker in-process (with ffprobe in place of MediaConvert's Probe API); `StartTranscription` runs
 * pocketsphinx on the source and writes its words in Amazon Transcribe's JSON format where Transcribe
 * would, so `CheckTranscription` finds the job COMPLETED at once and the same finalize step reads it.
 * Stopping the execution aborts the signal, which kills ffmpeg and pocketsphinx.
 */
const worker = createTranscriptionWorker({ probe: probeWithFfprobe });

/** pocketsphinx's own run time of the last transcriptions (the bench subtracts it from a job's time). */
export const recogniserRuns = new Map<string, number>();

const parseS3 = (uri: string) => {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match?.[1] || !match[2]) throw new Error(`Not an S3 URI: ${uri}`);
  return { bucket: match[1], key: match[2] };
};

const transcribeWithPocketsphinx: TaskOverride = async (input: StartTranscriptionParameters, ctx) => {
  const source = parseS3(input.Media.MediaFileUri);
  const { stdout, recogniserMs } = await recognise(await presignRead(source.bucket, source.key), ctx.signal);
  ctx.signal.throwIfAborted();
  recogniserRuns.set(input.TranscriptionJobName, recogniserMs);
  const output = {
    jobName: input.TranscriptionJobName,
    ...transcribeOutputFromPocketsphinx(stdout, input.LanguageCode ?? 'en-US'),
  };
  await putObject(input.OutputBucketName, input.OutputKey, JSON.stringify(output), 'application/json');
  return {
    TranscriptionJob: {
      TranscriptionJobName: input.TranscriptionJobName,
      TranscriptionJobStatus: 'IN_PROGRESS',
    },
  };
};

export const tasks: Record<string, TaskOverride> = {
  Probe: (input) => worker(input),
  StartTranscription: transcribeWithPocketsphinx,
  StartTranscriptionIdentifyingLanguage: transcribeWithPocketsphinx,
  CheckTranscription: async (input: { TranscriptionJobName: string }) => ({
    TranscriptionJob: {
      TranscriptionJobName: input.TranscriptionJobName,
      TranscriptionJobStatus: 'COMPLETED',
    },
  }),
  Finalize: (input) => worker(input),
  RecordFailure: (input) => worker(input),
};
