import { startExecution } from '../../shared/aws/step-functions';
import type { JobRef } from '../../shared/data/jobs/record';
import { type AudioConversionInput, convertAudio } from '../../workers/transcode-audio/convert';
import { runFfmpeg } from '../media-engine';
import type { TaskOverride } from './machines';
import { tasks as transcodeTasks } from './transcode-tasks';

/**
 * Local overrides of the Task states of `statemachines/transcode-audio.asl.json` (the Express machine of
 * audio-only transcodes): the worker steps and the ffmpeg function's module as in the `transcode` machine
 * (`./transcode-tasks.ts`), and `Handoff`, the Step Functions `startExecution` integration, starting the
 * Standard `transcode` execution through the local endpoint, with the integration's error name for a name
 * already taken by another input. `${TranscodeStateMachineArn}` is the local `transcode` machine's ARN
 * (`substituteDefinition`).
 */
const handoff: TaskOverride = async (input: { Name: string; Input: JobRef }) => {
  try {
    return { ExecutionArn: await startExecution('transcode', input.Name, input.Input) };
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExistsError')
      error.name = 'StepFunctions.ExecutionAlreadyExistsException';
    throw error;
  }
};

const worker = transcodeTasks.Probe as TaskOverride;

export const tasks: Record<string, TaskOverride> = {
  Probe: worker,
  Handoff: handoff,
  ConvertAudio: (input: AudioConversionInput, ctx) => convertAudio(input, { signal: ctx.signal, runFfmpeg }),
  Finalize: worker,
  RecordFailure: worker,
};
