import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deleteObject, putObject } from '../../functions/shared/aws/s3';
import { headObject, readObjectText } from '../../functions/shared/aws/s3-objects';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import type { TranscriptionJobRecord } from '../../functions/shared/data/transcription-jobs';
import { companyLimits } from '../../functions/shared/domain/company-limits';
import { jobErrorFor } from '../../functions/shared/domain/jobs/job-type';
import { failStep as engineFailStep, type FailInput } from '../../functions/shared/domain/jobs/worker-shell';
import { transcriptionJobs } from '../../functions/shared/domain/transcriptions';
import { finalizeStep } from '../../functions/workers/transcription/finalize';
import { probeStep } from '../../functions/workers/transcription/probe';

vi.mock('../../functions/shared/aws/s3-objects', () => ({ headObject: vi.fn(), readObjectText: vi.fn() }));
vi.mock('../../functions/shared/aws/s3', () => ({ putObject: vi.fn(), deleteObject: vi.fn() }));
vi.mock('../../functions/shared/domain/company-limits', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  companyLimits: vi.fn(),
}));

const { lifecycle, moves } = transcriptionJobs;
/** The probe's one move (`pending` → `transcribing`, after the probe: decision 0055). */
const startTranscribing = vi.fn<(options: object) => Promise<TranscriptionJobRecord>>();
const advance = vi.spyOn(moves, 'advance');
const completeReusedTranscriptionJob = vi.spyOn(moves, 'completeReused');
const completeTranscriptionJob = vi.spyOn(moves, 'complete');
const failTranscriptionJob = vi.spyOn(moves, 'fail');
const getTranscriptionJob = vi.spyOn(lifecycle, 'getJob');
const getTranscriptionReuse = vi.spyOn(lifecycle, 'getReuse');
const transcriptionLimits = vi.mocked(companyLimits);
const errorFor = (name: string | undefined) => jobErrorFor(transcriptionJobs, name);
const failStep = (input: FailInput, deps: { now?: () => Date }) =>
  engineFailStep(transcriptionJobs, input, deps);

const now = new Date('2026-03-04T05:06:07Z');
const ref = { companyId: 'co_1', jobId: 'tr_1', attempt: 1 };
const job: TranscriptionJobRecord = {
  ...ref,
  status: 'transcribing',
  language: 'en-US',
  source: { bucket: 'b', fullPath: 'companies/co_1/in.wav', size: 10, etag: 'e1' },
  reused: false,
  billedSeconds: 0,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
  attemptStartedAt: now.toISOString(),
};
const limits = { transcriptionMaxSourceBytes: 1000, transcriptionMaxDurationSeconds: 60 };
const probe = vi.fn();
const executionArn = 'arn:aws:states:eu-west-1:123456789012:execution:TranscriptionMachine:tr_1-a1';
const runProbe = () => probeStep({ action: 'probe', ...ref, executionArn }, { probe, now: () => now });
/** The job as the probe reads it. */
const pendingJob: TranscriptionJobRecord = { ...job, status: 'pending' };
const codeOf = async (step: Promise<unknown>) =>
  errorFor(
    await step.then(
      () => undefined,
      (e: Error) => e.name,
    ),
  ).code;

beforeEach(() => {
  advance.mockImplementation((options) => startTranscribing(options));
  completeReusedTranscriptionJob.mockResolvedValue({ set: {} });
  completeTranscriptionJob.mockResolvedValue({ set: {} });
  failTranscriptionJob.mockResolvedValue({ set: {} });
  vi.mocked(startTranscribing).mockResolvedValue(job);
  vi.mocked(getTranscriptionJob).mockResolvedValue(pendingJob);
  vi.mocked(headObject).mockResolvedValue({ size: 500, etag: 'e2', contentType: 'audio/wav' });
  vi.mocked(getTranscriptionReuse).mockResolvedValue(undefined);
  vi.mocked(transcriptionLimits).mockResolvedValue(limits as never);
  probe.mockResolvedValue({ durationSeconds: 12.5, hasVideo: false, hasAudio: true });
});
afterEach(() => vi.resetAllMocks());

describe('transcription probe step', () => {
  it('reads the job, then moves it once, with the duration, execution and engine lease (0055)', async () => {
    const result = await runProbe();
    expect(getTranscriptionJob).toHaveBeenCalledWith('co_1', 'tr_1');
    expect(startTranscribing).toHaveBeenCalledTimes(1);
    expect(startTranscribing).toHaveBeenCalledWith({
      job: ref,
      // `transcribing` too: a repeated step finds the job moved by its first invocation.
      from: ['pending', 'transcribing'],
      to: 'transcribing',
      leaseUntil: new Date(now.getTime() + (4 * 3600 + 900) * 1000),
      percent: 10,
      executionArn,
      set: { durationSeconds: 12.5 },
      now,
    });
    expect(result).toEqual({
      ...ref,
      reused: false,
      source: { size: 500, etag: 'e2' },
      durationSeconds: 12.5,
      engineOutput: { bucket: 'b', fullPath: 'companies/co_1/transcriptions/tr_1/a1/engine.json' },
      transcribe: {
        TranscriptionJobName: 'tr_1-a1',
        Media: { MediaFileUri: 's3://b/companies/co_1/in.wav' },
        OutputBucketName: 'b',
        OutputKey: 'companies/co_1/transcriptions/tr_1/a1/engine.json',
        LanguageCode: 'en-US',
      },
      pollSeconds: 15,
      workerMs: expect.any(Number),
    });
  });

  it('asks Transcribe to identify the language for auto', async () => {
    vi.mocked(getTranscriptionJob).mockResolvedValue({ ...pendingJob, language: 'auto' });
    const result = await runProbe();
    expect(result.transcribe).toMatchObject({ IdentifyLanguage: true });
    expect(result.transcribe).not.toHaveProperty('LanguageCode');
  });

  it('finishes with the stored result of the same content and language, billing nothing', async () => {
    const files = {
      json: { bucket: 'b', fullPath: 'j' },
      srt: { bucket: 'b', fullPath: 's' },
      vtt: { bucket: 'b', fullPath: 'v' },
    };
    const result = {
      text: 'x',
      textTruncated: false,
      words: [],
      wordsInFile: false,
      wordCount: 0,
      language: 'en-US',
      files,
    };
    vi.mocked(getTranscriptionReuse).mockResolvedValue({
      result,
      sourceJobId: 'tr_0',
      durationSeconds: 7,
      createdAt: now.toISOString(),
    });
    expect(await runProbe()).toEqual({ ...ref, reused: true });
    expect(getTranscriptionReuse).toHaveBeenCalledWith('co_1', 'en-US#500#e2');
    expect(completeReusedTranscriptionJob).toHaveBeenCalledWith({
      job: ref,
      from: ['pending'],
      set: { result, durationSeconds: 7 },
      now,
    });
    // The media was probed meanwhile; its answer is dropped, and the job never written `transcribing`.
    expect(startTranscribing).not.toHaveBeenCalled();
  });

  it.each([
    ['a missing source', () => vi.mocked(headObject).mockResolvedValue(undefined), 'source_missing'],
    [
      'a source over the size limit',
      () => vi.mocked(headObject).mockResolvedValue({ size: 5000, etag: 'e', contentType: 'audio/wav' }),
      'source_too_large',
    ],
    [
      'a source without audio',
      () => probe.mockResolvedValue({ durationSeconds: 3, hasVideo: true, hasAudio: false }),
      'source_no_audio',
    ],
    [
      'a source over the duration limit',
      () => probe.mockResolvedValue({ durationSeconds: 61, hasVideo: false, hasAudio: true }),
      'source_too_long',
    ],
    [
      'a source the prober cannot read',
      () => probe.mockRejectedValue(Object.assign(new Error('x'), { name: 'SourceUnreadable' })),
      'source_unreadable',
    ],
  ])('fails %s with its code', async (_, arrange, code) => {
    arrange();
    expect(await codeOf(runProbe())).toBe(code);
    expect(startTranscribing).not.toHaveBeenCalled();
  });

  it('ends quietly (TranscriptionJobGone) for a job that finished meanwhile, and continues a repeated step', async () => {
    vi.mocked(getTranscriptionJob).mockResolvedValue({ ...job, status: 'done' });
    await expect(runProbe()).rejects.toMatchObject({ name: 'TranscriptionJobGone' });
    expect(startTranscribing).not.toHaveBeenCalled();
    // Failed between the read and the move (a recovery): the move is refused and the job is gone.
    vi.mocked(getTranscriptionJob)
      .mockResolvedValueOnce(pendingJob)
      .mockResolvedValueOnce({ ...job, status: 'failed' });
    vi.mocked(startTranscribing).mockRejectedValueOnce(
      new JobTransitionRefusedError('transcription', 'tr_1', 'transcribing'),
    );
    await expect(runProbe()).rejects.toMatchObject({ name: 'TranscriptionJobGone' });
    // A repeated step finds its attempt already transcribing and goes on.
    vi.mocked(getTranscriptionJob).mockResolvedValue(job);
    await expect(runProbe()).resolves.toMatchObject({ reused: false });
  });
});

describe('transcription finalize step', () => {
  const engineOutput = { bucket: 'b', fullPath: 'companies/co_1/transcriptions/tr_1/a1/engine.json' };
  const runFinalize = () =>
    finalizeStep(
      {
        action: 'finalize',
        ...ref,
        durationSeconds: 4.2,
        engineOutput,
        source: { size: 500, etag: 'e2' },
        workerMs: 30,
        // GetTranscriptionJob's times of a 3.25-second run, as ISO strings.
        engineJob: { StartTime: '2026-03-04T05:00:00.000Z', CompletionTime: '2026-03-04T05:00:03.250Z' },
      },
      { now: () => now },
    );
  const transcribeJson = JSON.stringify({
    results: {
      language_code: 'en-US',
      transcripts: [{ transcript: 'Hello, world.' }],
      items: [
        {
          type: 'pronunciation',
          start_time: '0.1',
          end_time: '0.5',
          alternatives: [{ content: 'Hello', confidence: '0.9' }],
        },
        { type: 'punctuation', alternatives: [{ content: ',' }] },
        {
          type: 'pronunciation',
          start_time: '0.6',
          end_time: '1.0',
          alternatives: [{ content: 'world', confidence: '0.8' }],
        },
        { type: 'punctuation', alternatives: [{ content: '.' }] },
      ],
    },
  });

  beforeEach(() => {
    vi.mocked(getTranscriptionJob).mockResolvedValue(job);
    vi.mocked(putObject).mockResolvedValue({ etag: 'etag' });
    vi.mocked(deleteObject).mockResolvedValue();
  });

  it('writes the JSON, SRT and WebVTT files and completes the job recording them, billing whole seconds', async () => {
    vi.mocked(readObjectText).mockResolvedValue(transcribeJson);
    await runFinalize();
    const folder = 'companies/co_1/transcriptions/tr_1/a1/';
    const words = [
      { text: 'Hello,', start: 0.1, end: 0.5, confidence: 0.9 },
      { text: 'world.', start: 0.6, end: 1, confidence: 0.8 },
    ];
    expect(vi.mocked(putObject).mock.calls).toEqual([
      [
        'b',
        `${folder}transcript.json`,
        JSON.stringify({ text: 'Hello, world.', language: 'en-US', words }),
        'application/json',
      ],
      [
        'b',
        `${folder}transcript.srt`,
        '1\n00:00:00,100 --> 00:00:01,000\nHello, world.\n',
        'application/x-subrip',
      ],
      [
        'b',
        `${folder}transcript.vtt`,
        'WEBVTT\n\n00:00:00.100 --> 00:00:01.000\nHello, world.\n',
        'text/vtt',
      ],
    ]);
    const files = {
      json: { bucket: 'b', fullPath: `${folder}transcript.json` },
      srt: { bucket: 'b', fullPath: `${folder}transcript.srt` },
      vtt: { bucket: 'b', fullPath: `${folder}transcript.vtt` },
    };
    const result = {
      text: 'Hello, world.',
      textTruncated: false,
      words,
      wordsInFile: false,
      wordCount: 2,
      language: 'en-US',
      files,
    };
    expect(completeTranscriptionJob).toHaveBeenCalledWith({
      job: ref,
      from: ['transcribing'],
      set: { result },
      billedUnits: 5,
      // Recorded as stored objects by the move to `done` itself.
      files: [
        ['json', 'application/json'],
        ['srt', 'application/x-subrip'],
        ['vtt', 'text/vtt'],
      ].map(([ext, contentType]) => ({
        bucket: 'b',
        fullPath: `${folder}transcript.${ext}`,
        contentType,
        size: expect.any(Number),
        etag: 'etag',
        createdAt: now.toISOString(),
      })),
      computeMs: { workers: expect.any(Number), media: 3250 },
      reuse: {
        key: 'en-US#500#e2',
        entry: { result, sourceJobId: 'tr_1', durationSeconds: 4.2, createdAt: now.toISOString() },
      },
      now,
    });
    expect(deleteObject).toHaveBeenCalledWith('b', engineOutput.fullPath);
  });

  it('fails with transcription_failed when the engine wrote nothing readable', async () => {
    vi.mocked(readObjectText).mockResolvedValue(undefined);
    expect(await codeOf(runFinalize())).toBe('transcription_failed');
    vi.mocked(readObjectText).mockResolvedValue('{"not":"transcribe"}');
    expect(await codeOf(runFinalize())).toBe('transcription_failed');
    expect(completeTranscriptionJob).not.toHaveBeenCalled();
  });

  it('ends quietly for a job that is no longer this attempt, writing nothing', async () => {
    vi.mocked(getTranscriptionJob).mockResolvedValue({ ...job, status: 'failed' });
    await expect(runFinalize()).rejects.toMatchObject({ name: 'TranscriptionJobGone' });
    expect(putObject).not.toHaveBeenCalled();
  });
});

describe('transcription fail step', () => {
  it.each([
    ['States.Timeout', 'timeout'],
    ['Transcribe.BadRequestException', 'transcription_failed'],
    ['TranscriptionEngineFailed', 'transcription_failed'],
    ['SourceNoAudio', 'source_no_audio'],
    ['Lambda.Unknown', 'internal'],
  ])('records %s as %s and clears the lease', async (name, code) => {
    const out = await failStep({ action: 'fail', ...ref, error: { Error: name } }, { now: () => now });
    expect(out).toEqual({ ...ref, recorded: true });
    expect(failTranscriptionJob.mock.calls[0]?.[0]).toMatchObject({
      job: ref,
      error: { code },
      now,
    });
  });

  it('reports recorded: false for a job that finished meanwhile', async () => {
    failTranscriptionJob.mockRejectedValue(new JobTransitionRefusedError('transcription', 'tr_1', 'failed'));
    expect(await failStep({ action: 'fail', ...ref }, {})).toEqual({ ...ref, recorded: false });
  });
});
