import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_ENGINE_TIMING, registerLocalEngines } from '../../functions/local/engines';
import { registerEngines, speechEngine, transcriptionEngine } from '../../functions/shared/domain/engines';
import { acceptedLanguages, enqueueTranscription } from '../../functions/shared/domain/transcriptions';
import { TRANSCRIPTION_LANGUAGES } from '../../functions/shared/types/transcriptions';

/** The AWS engines' profiles, as this process started: put back after each test. */
const aws = { transcription: transcriptionEngine(), speech: speechEngine() };
afterEach(() => registerEngines(aws));

describe('engine profiles', () => {
  it('answers the AWS engines unless another is registered: every published language and auto, Transcribe checked every 15 s, Polly first after 4 s', () => {
    expect(acceptedLanguages()).toEqual([...TRANSCRIPTION_LANGUAGES, 'auto']);
    expect(transcriptionEngine().pollSeconds).toBe(15);
    expect(speechEngine()).toEqual({ jobPollSeconds: 4 });
  });

  it('answers the local engines once the local stack registered them: en-US only, checked every second', async () => {
    registerLocalEngines();
    expect(acceptedLanguages()).toEqual(['en-US']);
    expect(transcriptionEngine().pollSeconds).toBe(LOCAL_ENGINE_TIMING.pollSeconds);
    expect(speechEngine().jobPollSeconds).toBe(LOCAL_ENGINE_TIMING.pollSeconds);
    expect(typeof (await speechEngine().synthesizer?.())?.synthesize).toBe('function');
  });

  it('refuses a language the registered engine does not take with 400 naming those it takes', () => {
    registerLocalEngines();
    const refusal = (() => {
      try {
        void enqueueTranscription('co_1', { fullPath: 'companies/co_1/a.wav', language: 'auto' }, new Date());
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toMatchObject({
      code: 'validation_failed',
      extensions: { supportedLanguages: ['en-US'] },
    });
  });
});
