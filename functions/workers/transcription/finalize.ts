import { readObjectText } from '../../shared/aws/s3-objects';
import { transcriptionReuseKey } from '../../shared/data/transcription-jobs';
import { billableSeconds, engineRunMs } from '../../shared/domain/compute-time';
import {
  deleteIntermediateFile,
  jobFileOf,
  jobFolder,
  writeJobFile,
} from '../../shared/domain/jobs/output-files';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import { transcriptionJobs } from '../../shared/domain/transcriptions';
import {
  cuesFromWords,
  inlineResult,
  type TranscribeOutput,
  textFromTranscribe,
  toSrt,
  toVtt,
  wordsFromTranscribe,
} from '../../shared/domain/transcripts';
import type { FinalizeInput, JobRef, WorkerDeps } from './types';

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
 * Finalize step: converts the engine's JSON (Transcribe's format, from either engine) into our text and
 * words, writes the transcript as JSON, SRT and WebVTT, then moves the job `transcribing` → `done`, recording
 * the files as stored objects, billing the audio seconds with the compute time (the probe's and this step's
 * run time, the engine's start to completion) and writing the reuse entry in the same transaction, and
 * deletes the engine's JSON. Error: `OutputMissing` when the engine wrote no readable output.
 */
export const finalizeStep = (input: FinalizeInput, deps: Pick<WorkerDeps, 'now'>): Promise<JobRef> =>
  runStep(transcriptionJobs, input, deps, async (step) => {
    const { ref, now } = step;
    // The job and the engine's output are read at once.
    const [job, engineText] = await Promise.all([
      step.read(['transcribing']),
      readObjectText(input.engineOutput.bucket, input.engineOutput.fullPath),
    ]);
    const output = parseEngineOutput(engineText);
    const words = wordsFromTranscribe(output);
    const text = textFromTranscribe(output, words);
    const language = output.results.language_code ?? job.language;
    const cues = cuesFromWords(words);
    const folder = jobFolder('transcriptions', ref);
    const write = (name: string, body: string, contentType: string) =>
      writeJobFile(
        { bucket: input.engineOutput.bucket, fullPath: `${folder}${name}`, body, contentType },
        now,
      );
    const [json, srt, vtt] = await Promise.all([
      write('transcript.json', JSON.stringify({ text, language, words }), 'application/json'),
      write('transcript.srt', toSrt(cues), 'application/x-subrip'),
      write('transcript.vtt', toVtt(cues), 'text/vtt'),
    ]);
    const files = { json: jobFileOf(json), srt: jobFileOf(srt), vtt: jobFileOf(vtt) };
    const result = inlineResult({ text, words, language, files });
    await step.complete({
      from: ['transcribing'],
      set: { result },
      billedUnits: billableSeconds(input.durationSeconds),
      files: [json, srt, vtt],
      computeMs: {
        workers: (input.workerMs ?? 0) + step.elapsed(),
        media: engineRunMs(input.engineJob?.StartTime, input.engineJob?.CompletionTime),
      },
      reuse: {
        key: transcriptionReuseKey({ language: job.language, ...input.source }),
        entry: {
          result,
          sourceJobId: ref.jobId,
          durationSeconds: input.durationSeconds,
          createdAt: now.toISOString(),
        },
      },
    });
    // The engine's own JSON is an intermediate file, not one of the company's stored objects.
    await deleteIntermediateFile(input.engineOutput.bucket, input.engineOutput.fullPath, ref.jobId);
    return ref;
  });
