import { deleteObject, putObject } from '../../shared/aws/s3';
import { readObjectText } from '../../shared/aws/s3-objects';
import { recordStoredObject } from '../../shared/data/stored-objects';
import { completeTranscriptionJob, getTranscriptionJob } from '../../shared/data/transcription-jobs';
import { engineRunMs, startStepClock } from '../../shared/domain/compute-time';
import {
  cuesFromWords,
  inlineResult,
  type TranscribeOutput,
  textFromTranscribe,
  toSrt,
  toVtt,
  wordsFromTranscribe,
} from '../../shared/domain/transcripts';
import { logger } from '../../shared/logger';
import type { TranscriptFile } from '../../shared/types/transcriptions';
import { jobGone, stepError } from './errors';
import { resultFolder } from './probe';
import { finishOrGone } from './transitions';
import type { FinalizeInput, JobRef } from './types';

/** Seconds billed for a transcription: the audio duration, rounded up to whole seconds. */
export const billableSeconds = (durationSeconds: number) => Math.max(1, Math.ceil(durationSeconds));

const parseEngineOutput = (text: string | undefined): TranscribeOutput => {
  if (text === undefined) throw stepError('OutputMissing', 'The speech engine wrote no transcript.');
  try {
    const output = JSON.parse(text) as TranscribeOutput;
    if (!Array.isArray(output.results?.items) || !Array.isArray(output.results.transcripts))
      throw new Error();
    return output;
  } catch {
    throw stepError('OutputMissing', 'The speech engine wrote no readable transcript.');
  }
};

/**
 * Finalize step: reads the engine's JSON (Transcribe's format, from either engine), converts it into our
 * text and words, writes the transcript as JSON, SRT and WebVTT files recorded as the company's stored
 * objects, then moves the job `transcribing` → `done`, billing the audio seconds with the compute time (the
 * probe's and this step's run time, the engine's start to completion) and writing the reuse entry
 * in the same transaction, and deletes the engine's JSON. Error: `OutputMissing` when the engine wrote no
 * readable output.
 */
export const finalizeStep = async (input: FinalizeInput, deps: { now?: () => Date }): Promise<JobRef> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const job = await getTranscriptionJob(ref.companyId, ref.jobId);
  if (!job || job.attempt !== ref.attempt || job.status !== 'transcribing') throw jobGone(ref.jobId);

  const output = parseEngineOutput(
    await readObjectText(input.engineOutput.bucket, input.engineOutput.fullPath),
  );
  const words = wordsFromTranscribe(output);
  const text = textFromTranscribe(output, words);
  const language = output.results.language_code ?? job.language;
  const cues = cuesFromWords(words);
  const folder = resultFolder(job);
  const bucket = input.engineOutput.bucket;
  const write = async (name: string, body: string, contentType: string): Promise<TranscriptFile> => {
    const fullPath = `${folder}${name}`;
    const { etag } = await putObject(bucket, fullPath, body, contentType);
    // Recorded like an upload: downloadable with GET /v1/storage/url, counted in storage bytes.
    await recordStoredObject(
      ref.companyId,
      { bucket, fullPath, size: Buffer.byteLength(body), contentType, etag, createdAt: now.toISOString() },
      now,
    );
    return { bucket, fullPath };
  };
  const [json, srt, vtt] = await Promise.all([
    write('transcript.json', JSON.stringify({ text, language, words }), 'application/json'),
    write('transcript.srt', toSrt(cues), 'application/x-subrip'),
    write('transcript.vtt', toVtt(cues), 'text/vtt'),
  ]);
  const result = inlineResult({ text, words, language, files: { json, srt, vtt } });
  await finishOrGone(ref.jobId, () =>
    completeTranscriptionJob({
      job: ref,
      result,
      billedSeconds: billableSeconds(input.durationSeconds),
      computeMs: {
        workers: (input.workerMs ?? 0) + elapsed(),
        media: engineRunMs(input.engineJob?.StartTime, input.engineJob?.CompletionTime),
      },
      reuse: {
        content: { language: job.language, size: input.source.size, etag: input.source.etag },
        entry: {
          result,
          sourceJobId: ref.jobId,
          durationSeconds: input.durationSeconds,
          createdAt: now.toISOString(),
        },
      },
      now,
      observed: job,
    }),
  );
  // The engine's own JSON is an intermediate file, not one of the company's stored objects: once the job is
  // `done` nothing reads it again (a repeated finalize finds the job done and ends without reading).
  await deleteObject(input.engineOutput.bucket, input.engineOutput.fullPath).catch((error: unknown) =>
    logger.warn('engine output not deleted', { jobId: ref.jobId, error: error as Error }),
  );
  return ref;
};
