import type { MediaProber } from '../../shared/aws/mediaconvert';
import { headObject } from '../../shared/aws/s3-objects';
import { recordStoredObject } from '../../shared/data/stored-objects';
import {
  claimTranscodeJob,
  completeReusedTranscodeJob,
  completeTranscodeJob,
  failTranscodeJob,
  getTranscodeJob,
  recordTranscodeProgress,
  startFinalizing,
  startTranscoding,
  type TranscodeJobRecord,
  type TranscodeStatus,
  TranscodeTransitionRefusedError,
  UNFINISHED_STATUSES,
} from '../../shared/data/transcode-jobs';
import { getTranscodeReuse } from '../../shared/data/transcode-reuse';
import { companyStoragePrefix as companyPrefix } from '../../shared/domain/storage-references';
import {
  mediaConvertSettings,
  presetContentType,
  presetExtension,
} from '../../shared/domain/transcode-presets';
import { transcodeLimits } from '../../shared/domain/transcodes';
import { logger } from '../../shared/logger';

/**
 * The transcode worker: the Lambda tasks of `statemachines/transcode.asl.json`. Each step first makes its
 * conditional transition; a job that was canceled (or retried into a newer attempt) refuses it, and the
 * step throws `TranscodeJobGone` without writing anything, which the state machine ends quietly. A repeated
 * invocation of the same attempt (a retry after the first one already wrote) continues idempotently.
 *
 * Errors thrown here keep their `name` as the Step Functions error name; the fail step maps it to the job's
 * error code (`ERROR_CODES`).
 */
export const LEASE_SECONDS = { probe: 300, transcode: 7200 + 600, finalize: 300 } as const;

export interface JobRef {
  companyId: string;
  jobId: string;
  attempt: number;
}

export interface ProbeInput extends JobRef {
  action: 'probe';
  executionArn?: string;
}

export interface ProbeOutput extends JobRef {
  reused: boolean;
  /** The source as probed (HeadObject): the content this conversion reads, the key of its reuse entry. */
  source?: { size: number; etag: string };
  durationSeconds?: number;
  output?: { bucket: string; fullPath: string; contentType: string };
  /** MediaConvert job settings of the preset (the engine input of the transcode step). */
  settings?: Record<string, unknown>;
  /** Strings only, as MediaConvert's UserMetadata requires; the local engine reads the preset from it. */
  userMetadata?: Record<string, string>;
}

export interface FinalizeInput extends JobRef {
  action: 'finalize';
  durationSeconds: number;
  output: { bucket: string; fullPath: string; contentType: string };
  /** The probed source size and ETag (absent only for executions started before they were passed on). */
  source?: { size: number; etag: string };
}

export interface FailInput extends JobRef {
  action: 'fail';
  error?: { Error?: string; Cause?: string };
}

/**
 * A MediaConvert job state change (EventBridge, `MediaConvert Job State Change`), delivered by the rule of
 * this machine as `{ action: 'progress', detail }`. `STATUS_UPDATE` events carry the percent complete; the
 * job is found through the `userMetadata` the probe step gave MediaConvert.
 */
export interface ProgressInput {
  action: 'progress';
  detail?: {
    status?: string;
    userMetadata?: Record<string, string>;
    jobProgress?: { jobPercentComplete?: number };
  };
}

export type WorkerInput = ProbeInput | FinalizeInput | FailInput | ProgressInput;

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

const gone = (jobId: string) => named('TranscodeJobGone', `Transcode job ${jobId} was canceled or retried`);

/** Runs a transition; a refused one means the job is no longer this attempt's to work on. */
const transition = async <T>(jobId: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof TranscodeTransitionRefusedError) throw gone(jobId);
    throw error;
  }
};

const ORDER: readonly TranscodeStatus[] = UNFINISHED_STATUSES;

/**
 * Runs a move between unfinished states. A refused move is not always a gone job: a repeated invocation of
 * the same step (a Lambda or Step Functions retry after the first invocation already wrote) finds the job of
 * its own attempt already in or past `target`, and continues from there. Only a job that was canceled,
 * finished, or moved on to another attempt is gone.
 */
const advance = async (
  ref: JobRef,
  target: TranscodeStatus,
  write: () => Promise<TranscodeJobRecord>,
): Promise<TranscodeJobRecord> => {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof TranscodeTransitionRefusedError)) throw error;
    const job = await getTranscodeJob(ref.companyId, ref.jobId);
    if (job && job.attempt === ref.attempt && ORDER.indexOf(job.status) >= ORDER.indexOf(target)) {
      logger.info('transcode step repeated', { jobId: ref.jobId, attempt: ref.attempt, status: job.status });
      return job;
    }
    throw gone(ref.jobId);
  }
};

const leaseFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

export const outputPath = (job: Pick<TranscodeJobRecord, 'companyId' | 'jobId' | 'attempt' | 'preset'>) =>
  `${companyPrefix(job.companyId)}transcodes/${job.jobId}/a${job.attempt}/output.${presetExtension(job.preset)}`;

export interface WorkerDeps {
  probe: MediaProber;
  now?: () => Date;
  /** Reads an object's size and ETag (S3 HeadObject unless given). */
  head?: typeof headObject;
}

/**
 * The machine's name from its execution ARN (`arn:...:execution:<machine>:<id>`), given to MediaConvert so
 * the progress rule matches only jobs of this machine.
 */
const stateMachineOf = (executionArn: string | undefined): { stateMachine?: string } => {
  const parts = executionArn?.split(':') ?? [];
  return parts[5] === 'execution' && parts[6] ? { stateMachine: parts[6] } : {};
};

const probeStep = async (input: ProbeInput, deps: WorkerDeps): Promise<ProbeOutput> => {
  const now = deps.now?.() ?? new Date();
  const { companyId, jobId, attempt } = input;
  const job = await advance(input, 'probing', () =>
    claimTranscodeJob({
      job: { companyId, jobId, attempt },
      leaseUntil: leaseFrom(now, LEASE_SECONDS.probe),
      ...(input.executionArn ? { executionArn: input.executionArn } : {}),
      now,
    }),
  );
  const ref = { companyId, jobId, attempt };
  const { source } = job;

  const head = await headObject(source.bucket, source.fullPath);
  if (!head) throw named('SourceMissing', 'The source file no longer exists.');

  // Reuse: the same content (ETag and size) already converted to this preset, with its output still stored.
  const reuse = await getTranscodeReuse(companyId, { preset: job.preset, size: head.size, etag: head.etag });
  if (reuse && (await headObject(reuse.output.bucket, reuse.output.fullPath))) {
    await transition(jobId, () => completeReusedTranscodeJob({ job: ref, output: reuse.output, now }));
    logger.info('transcode reused', { jobId, sourceJobId: reuse.sourceJobId });
    return { ...ref, reused: true };
  }

  const limits = await transcodeLimits(companyId);
  if (head.size > limits.transcodeMaxSourceBytes) {
    throw named('SourceTooLarge', `The source is larger than ${limits.transcodeMaxSourceBytes} bytes.`);
  }
  const media = await deps.probe(source);
  if (media.durationSeconds > limits.transcodeMaxDurationSeconds) {
    throw named('SourceTooLong', `The source is longer than ${limits.transcodeMaxDurationSeconds} seconds.`);
  }
  await advance(input, 'transcoding', () =>
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
  };
};

/** Seconds billed for a conversion: the source duration, rounded up to whole seconds. */
export const billableSeconds = (durationSeconds: number) => Math.max(1, Math.ceil(durationSeconds));

const finalizeStep = async (input: FinalizeInput, deps: WorkerDeps): Promise<JobRef> => {
  const now = deps.now?.() ?? new Date();
  const { companyId, jobId, attempt } = input;
  const job = await advance(input, 'finalizing', () =>
    startFinalizing({ job: input, leaseUntil: leaseFrom(now, LEASE_SECONDS.finalize), now }),
  );
  const head = await (deps.head ?? headObject)(input.output.bucket, input.output.fullPath);
  if (!head) throw named('OutputMissing', 'The media engine wrote no output file.');
  const output = { ...input.output, size: head.size };
  // Recorded like an upload: downloadable with GET /v1/storage/url, referenceable, counted in storage bytes.
  await recordStoredObject(
    companyId,
    { ...input.output, size: head.size, etag: head.etag, createdAt: now.toISOString() },
    now,
  );
  // The reuse entry is written in the same transaction as the billed move to `done`: a job canceled
  // meanwhile leaves none behind.
  const source = input.source ?? job.source;
  const reuse = {
    content: { preset: job.preset, size: source.size, etag: source.etag },
    entry: {
      output,
      sourceJobId: jobId,
      durationSeconds: input.durationSeconds,
      createdAt: now.toISOString(),
    },
  };
  await transition(jobId, () =>
    completeTranscodeJob({
      job: { companyId, jobId, attempt },
      output,
      billedSeconds: billableSeconds(input.durationSeconds),
      reuse,
      now,
    }),
  );
  return { companyId, jobId, attempt };
};

/** Step Functions error name → the job's error code and a message safe to show the tenant. */
export const ERROR_CODES: Record<string, { code: string; message: string }> = {
  SourceMissing: { code: 'source_missing', message: 'The source file no longer exists.' },
  SourceUnreadable: { code: 'source_unreadable', message: 'The source is not readable audio or video.' },
  SourceTooLarge: { code: 'source_too_large', message: "The source is larger than your plan's limit." },
  SourceTooLong: { code: 'source_too_long', message: "The source is longer than your plan's limit." },
  TranscodeEngineFailed: {
    code: 'transcode_failed',
    message: 'The media engine could not convert the source.',
  },
  OutputMissing: { code: 'transcode_failed', message: 'The media engine produced no output.' },
  'States.TaskFailed': {
    code: 'transcode_failed',
    message: 'The media engine could not convert the source.',
  },
  'States.Timeout': { code: 'timeout', message: 'The conversion took too long.' },
  'States.HeartbeatTimeout': { code: 'timeout', message: 'The conversion took too long.' },
  Interrupted: { code: 'interrupted', message: 'The conversion was interrupted; retry the job.' },
};
const INTERNAL = { code: 'internal', message: 'The conversion failed unexpectedly; retry the job.' };

export const errorFor = (name: string | undefined) =>
  (name && ERROR_CODES[name]) ||
  (name?.startsWith('MediaConvert.') ? ERROR_CODES.TranscodeEngineFailed : INTERNAL) ||
  INTERNAL;

const failStep = async (input: FailInput, deps: WorkerDeps): Promise<JobRef & { recorded: boolean }> => {
  const now = deps.now?.() ?? new Date();
  const { companyId, jobId, attempt } = input;
  const error = errorFor(input.error?.Error);
  try {
    await failTranscodeJob({ job: { companyId, jobId, attempt }, error, now });
    logger.info('transcode failed', { jobId, attempt, code: error.code, cause: input.error?.Error });
    return { companyId, jobId, attempt, recorded: true };
  } catch (e) {
    // Canceled or retried meanwhile: the job's current state wins.
    if (e instanceof TranscodeTransitionRefusedError) return { companyId, jobId, attempt, recorded: false };
    throw e;
  }
};

/**
 * Records the percent complete of a MediaConvert job on the job (the recorder the local engine uses). Only
 * a job of the same attempt that is still `transcoding` takes it; anything else (a late event, a canceled
 * or retried job) is ignored. Capped at 99: 100 is written by finalize.
 */
const progressStep = async (
  input: ProgressInput,
  deps: WorkerDeps,
): Promise<{ recorded: boolean; percent?: number }> => {
  const now = deps.now?.() ?? new Date();
  const meta = input.detail?.userMetadata ?? {};
  const percent = Number(input.detail?.jobProgress?.jobPercentComplete);
  const attempt = Number(meta.attempt);
  if (
    input.detail?.status !== 'STATUS_UPDATE' ||
    !meta.companyId ||
    !meta.jobId ||
    !Number.isInteger(attempt) ||
    !Number.isFinite(percent)
  ) {
    return { recorded: false };
  }
  const clamped = Math.max(0, Math.min(99, Math.floor(percent)));
  try {
    await recordTranscodeProgress({
      job: { companyId: meta.companyId, jobId: meta.jobId, attempt },
      percent: clamped,
      now,
    });
    return { recorded: true, percent: clamped };
  } catch (error) {
    if (error instanceof TranscodeTransitionRefusedError) return { recorded: false };
    throw error;
  }
};

export const createTranscodeWorker =
  (deps: WorkerDeps) =>
  async (input: WorkerInput): Promise<unknown> => {
    if (input.action === 'progress') return progressStep(input, deps);
    logger.appendKeys({ jobId: input.jobId, companyId: input.companyId });
    try {
      switch (input.action) {
        case 'probe':
          return await probeStep(input, deps);
        case 'finalize':
          return await finalizeStep(input, deps);
        case 'fail':
          return await failStep(input, deps);
        default:
          throw new Error(`Unknown transcode worker action ${(input as { action: string }).action}`);
      }
    } finally {
      logger.resetKeys();
    }
  };
