/**
 * The platform's state machines (`statemachines/<name>.asl.json`), named by what they run. Pure: the CDK
 * app and the local stack use these names too.
 */
export const STATE_MACHINE_NAMES = [
  'transcode',
  'transcode-audio',
  'transcription',
  'speech-job',
  'message-delivery',
] as const;
export type StateMachineName = (typeof STATE_MACHINE_NAMES)[number];

/**
 * The machines deployed as Express (billed per request and duration, at most 5 minutes, no StopExecution nor
 * name de-duplication); the others are Standard. The CDK app, the local stack and the cost bench read it.
 */
export const EXPRESS_STATE_MACHINES: readonly StateMachineName[] = ['transcode-audio', 'message-delivery'];

/** Whether an execution ARN is of an Express machine (`arn:aws:states:…:express:<machine>:<name>:<id>`). */
export const isExpressExecution = (executionArn: string): boolean => executionArn.split(':')[5] === 'express';

/** The environment variable holding a machine's ARN: `transcode` → `TRANSCODE_STATE_MACHINE_ARN`. */
export const stateMachineArnVariable = (machine: string): string =>
  `${machine.toUpperCase().replaceAll('-', '_')}_STATE_MACHINE_ARN`;
