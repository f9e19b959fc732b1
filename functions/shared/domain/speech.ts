import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteObject } from '../aws/s3';
import { uploadFile } from '../aws/s3-objects';
import { getItemsByKey } from '../data/batch';
import { companyEntry } from '../data/companies';
import { recordBilledObject } from '../data/stored-objects';
import { meterMonthEntries, meterMonthFigure, secondsToNextUtcMonth } from '../data/usage-meters';
import { env } from '../env';
import { AppError, ValidationError } from '../errors';
import { ulid } from '../ids';
import { companyObjectPrefix } from '../types/object-prefixes';
import {
  SPEECH_FORMAT_FILES,
  type SpeechEngine,
  type SpeechFormat,
  VOICE_PROFILES,
} from '../types/speech-voices';
import { limitsOf } from './company-limits';
import { startStepClock } from './compute-time';
import { speechEngine } from './engines';
import { splitIntoParts } from './sentences';
import { characterCount, SPEECH_TEXT_SILENT_MESSAGE, speechTextProblem, voiceOf } from './speech-request';

/**
 * Synchronous text-to-speech into storage (`POST /v1/speech`). The text is split into parts of at most
 * `SPEECH_CALL_MAX_CHARACTERS` (Polly bills at most 3000 characters per call) at sentence, then word,
 * boundaries (what a character is: `speech-request.ts`); the engine synthesizes each part and joins them into one file of the requested format. The file
 * is uploaded under `companies/<companyId>/speech/`, then recorded as a stored object, counted in
 * `storageBytes` and billed to the voice's meter in one transaction: a failure at any step bills nothing and
 * deletes the object.
 */
export const SPEECH_CALL_MAX_CHARACTERS = 3000;

/** `companies/<companyId>/speech/<ulid>.<extension>`: where synthesized audio is stored. */
export const speechPath = (companyId: string, extension: string, now: Date): string =>
  `${companyObjectPrefix(companyId, 'speech')}${ulid(now.getTime())}.${extension}`;

const loadPolly = async (): Promise<SpeechEngine> => (await import('../aws/polly')).pollyEngine();

/** The synthesizer of the registered speech engine (`engines.ts`): Polly unless another one is registered. */
const engine = (): Promise<SpeechEngine> => (speechEngine().synthesizer ?? loadPolly)();

export const speechVoices = () => ({
  voices: VOICE_PROFILES.map(({ id, name, language, gender, engine, meter, default: isDefault }) => ({
    id,
    name,
    language,
    gender,
    engine,
    meter,
    default: isDefault,
  })),
});

/** Characters billed: the characters (code points, as the limit counts them) of the parts sent to the engine. */
export const billedCharacters = (parts: readonly string[]) =>
  parts.reduce((sum, p) => sum + characterCount(p), 0);

export const synthesizeSpeech = async (
  companyId: string,
  input: { text: string; voiceProfileId?: string | undefined; format?: SpeechFormat | undefined },
  storageBytesLimit: number | undefined,
  now: Date,
) => {
  const voice = voiceOf(input.voiceProfileId);
  const format = input.format ?? 'mp3';
  const parts = splitIntoParts(input.text, SPEECH_CALL_MAX_CHARACTERS);
  // The request schema refuses such text already; callers that skip it must not reach the engine with nothing.
  const problem = parts.length === 0 ? SPEECH_TEXT_SILENT_MESSAGE : speechTextProblem(input.text);
  if (problem) throw new ValidationError([{ pointer: '/body/text', message: problem }]);
  const characters = billedCharacters(parts);
  const [company, month, family] = await getItemsByKey([
    companyEntry(companyId),
    ...meterMonthEntries(companyId, voice.meter, now),
  ]);
  const limits = await limitsOf(companyId, company);
  const quotaExceeded = (used?: number) =>
    new AppError('speech_quota_exceeded', 'The monthly speech characters of your plan are used up.', {
      retryAfterSeconds: secondsToNextUtcMonth(now),
      extensions: {
        meter: voice.meter,
        limit: limits.speechCharactersPerMonth,
        ...(used === undefined ? {} : { used }),
      },
    });
  // Checked before the work, and again by the billing write itself, which concurrent requests cannot pass.
  const used = meterMonthFigure([month, family], voice.meter);
  if (used + characters > limits.speechCharactersPerMonth) throw quotaExceeded(used);
  const dir = await mkdtemp(join(tmpdir(), 'speech-'));
  try {
    // The engine's run (Polly's calls, or the registered engine's run) is billed as `computeMs.media`.
    const synthesisMs = startStepClock();
    const { file, durationSeconds } = await (await engine()).synthesize({ parts, voice, format, dir });
    const mediaMs = synthesisMs();
    const { extension, contentType } = SPEECH_FORMAT_FILES[format];
    const bucket = env().bucketName;
    const fullPath = speechPath(companyId, extension, now);
    const { size, etag } = await uploadFile(bucket, fullPath, file, contentType);
    const object = { bucket, fullPath, size, contentType, etag, createdAt: now.toISOString() };
    let outcome: Awaited<ReturnType<typeof recordBilledObject>>;
    try {
      outcome = await recordBilledObject(companyId, object, storageBytesLimit, {
        name: voice.meter,
        amount: characters,
        now,
        limit: limits.speechCharactersPerMonth,
        computeMs: { media: mediaMs },
      });
    } catch (error) {
      await deleteObject(bucket, fullPath);
      throw error;
    }
    if (outcome === 'meter_limit_reached') {
      await deleteObject(bucket, fullPath);
      throw quotaExceeded();
    }
    if (outcome === 'storage_limit_reached') {
      await deleteObject(bucket, fullPath);
      throw new AppError(
        'storage_limit_reached',
        'Storing the audio would exceed the storage allowance of your plan.',
        {
          extensions: { limit: storageBytesLimit },
        },
      );
    }
    return { bucket, fullPath, size, format, durationSeconds, characters, meter: voice.meter };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
