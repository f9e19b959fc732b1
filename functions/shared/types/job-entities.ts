/**
 * The entity of each job type's job item. A final move of one is settled from the table's stream (decision
 * 0065): the event dispatcher's event source filters on them, with the item's `_streamed` mark.
 */
export const JOB_ENTITIES = {
  transcode: 'transcode_job',
  transcription: 'transcription_job',
  speechJob: 'speech_job',
} as const;

export const SETTLED_JOB_ENTITIES: readonly string[] = Object.values(JOB_ENTITIES);
