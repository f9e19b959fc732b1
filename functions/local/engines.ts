import { registerEngines } from '../shared/domain/engines';
import { RECOGNIZER_LANGUAGES } from './speech-engine';

/**
 * The local engines behind the product's engine profiles (`shared/domain/engines.ts`): pocketsphinx in place of
 * Amazon Transcribe (`speech-engine.ts`), espeak-ng and ffmpeg in place of Amazon Polly (`speech-synthesis.ts`,
 * `long-speech.ts`); ffmpeg in place of MediaConvert needs no profile (`media-engine.ts`). Their timing is
 * here, in one place: a check of a running local transcription or synthesis waits up to `checkWaitMs` for the
 * run to end (well inside the Task's TimeoutSeconds), so a short one needs one check, and the machine's Wait
 * between two checks can be a second.
 */
export const LOCAL_ENGINE_TIMING = { checkWaitMs: 20_000, pollSeconds: 1 } as const;

/** Registers the local engines for this process; the stack calls it before any handler or task runs. */
export const registerLocalEngines = (): void =>
  registerEngines({
    // Debian's model cannot identify a language: no `auto`.
    transcription: { languages: RECOGNIZER_LANGUAGES, pollSeconds: LOCAL_ENGINE_TIMING.pollSeconds },
    speech: {
      synthesizer: async () => (await import('./speech-synthesis')).espeakEngine,
      jobPollSeconds: LOCAL_ENGINE_TIMING.pollSeconds,
    },
  });

/** A run's outcome when it ends within `checkWaitMs`, else `undefined` (the check answers "in progress"). */
export const awaitRun = <T>(done: Promise<T>): Promise<T | undefined> =>
  Promise.race([
    done,
    new Promise<undefined>((r) => setTimeout(() => r(undefined), LOCAL_ENGINE_TIMING.checkWaitMs).unref()),
  ]);
