/**
 * The platform's state machines (`statemachines/<name>.asl.json`), named by what they run. Pure: the CDK
 * app and the local stack use these names too.
 */
export const STATE_MACHINE_NAMES = ['transcode', 'transcription', 'speech-job', 'message-delivery'] as const;
export type StateMachineName = (typeof STATE_MACHINE_NAMES)[number];

/** The environment variable holding a machine's ARN: `transcode` → `TRANSCODE_STATE_MACHINE_ARN`. */
export const stateMachineArnVariable = (machine: string): string =>
  `${machine.toUpperCase().replaceAll('-', '_')}_STATE_MACHINE_ARN`;
