import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_ENGINE_TIMING } from '../../functions/local/engines';
import { recognise } from '../../functions/local/speech-engine';
import { tasks } from '../../functions/local/step-functions/transcription-tasks';
import { putObject } from '../../functions/shared/aws/s3';
import { presignRead } from '../../functions/shared/aws/s3-objects';

vi.mock('../../functions/local/speech-engine', () => ({ recognise: vi.fn() }));
vi.mock('../../functions/shared/aws/s3', () => ({ putObject: vi.fn() }));
vi.mock('../../functions/shared/aws/s3-objects', () => ({ presignRead: vi.fn(), headObject: vi.fn() }));

const ctx = { signal: new AbortController().signal, executionArn: 'arn:local' };
const parameters = (name: string) => ({
  TranscriptionJobName: name,
  Media: { MediaFileUri: 's3://b/companies/co_1/in.wav' },
  OutputBucketName: 'b',
  OutputKey: 'companies/co_1/transcriptions/tr_1/a1/engine.json',
  LanguageCode: 'en-US',
});
const statusOf = (answer: unknown) =>
  (answer as { TranscriptionJob: { TranscriptionJobStatus: string; FailureReason?: string } })
    .TranscriptionJob;

afterEach(() => {
  vi.useRealTimers();
  vi.resetAllMocks();
});

describe('local Transcribe stand-in (pocketsphinx)', () => {
  it('starts the engine in the background and answers IN_PROGRESS until it wrote the Transcribe JSON', async () => {
    vi.useFakeTimers();
    vi.mocked(presignRead).mockResolvedValue('http://s3/in.wav');
    let finish: (value: { stdout: string; recogniserMs: number }) => void = () => undefined;
    vi.mocked(recognise).mockReturnValue(new Promise((resolve) => (finish = resolve)));
    const start = await tasks.StartTranscription?.(parameters('tr_slow-a1'), ctx);
    expect(statusOf(start).TranscriptionJobStatus).toBe('IN_PROGRESS');
    const pending = tasks.CheckTranscription?.({ TranscriptionJobName: 'tr_slow-a1' }, ctx);
    await vi.advanceTimersByTimeAsync(LOCAL_ENGINE_TIMING.checkWaitMs);
    expect(statusOf(await pending).TranscriptionJobStatus).toBe('IN_PROGRESS');
    expect(putObject).not.toHaveBeenCalled();
    finish({ stdout: 'hello 0.100 0.400 0.9\n', recogniserMs: 5 });
    const done = await tasks.CheckTranscription?.({ TranscriptionJobName: 'tr_slow-a1' }, ctx);
    expect(statusOf(done).TranscriptionJobStatus).toBe('COMPLETED');
    const [bucket, key, body] = vi.mocked(putObject).mock.calls[0] ?? [];
    expect([bucket, key]).toEqual(['b', 'companies/co_1/transcriptions/tr_1/a1/engine.json']);
    expect(JSON.parse(String(body)).results.items[0]).toEqual({
      type: 'pronunciation',
      start_time: '0.100',
      end_time: '0.400',
      alternatives: [{ content: 'hello', confidence: '0.9' }],
    });
  });

  it('answers FAILED with the reason when the engine fails, and for a job it never started', async () => {
    vi.mocked(presignRead).mockResolvedValue('http://s3/in.wav');
    vi.mocked(recognise).mockRejectedValue(new Error('ffmpeg exited with 1'));
    await tasks.StartTranscription?.(parameters('tr_bad-a1'), ctx);
    const failed = statusOf(await tasks.CheckTranscription?.({ TranscriptionJobName: 'tr_bad-a1' }, ctx));
    expect(failed).toMatchObject({ TranscriptionJobStatus: 'FAILED', FailureReason: 'ffmpeg exited with 1' });
    const unknown = statusOf(await tasks.CheckTranscription?.({ TranscriptionJobName: 'tr_gone-a1' }, ctx));
    expect(unknown.TranscriptionJobStatus).toBe('FAILED');
  });
});
