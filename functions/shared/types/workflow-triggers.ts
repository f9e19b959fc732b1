import type { EventType } from './events';

/**
 * What starts a workflow besides an API call: `on` of a definition. `events` starts one run per matching
 * event of the company; `schedule` (EventBridge Scheduler `rate(…)` or `cron(…)`, UTC) starts runs on a
 * schedule.
 */
export interface WorkflowTriggers {
  events?: EventType[];
  /** Only `dynadata.item.*` events about items of these types start a run (absent: every type). */
  dynadataTypes?: string[];
  schedule?: string;
}

/**
 * Event types a workflow can be started by. `workflow_run.finished` is not one (a workflow started by runs
 * finishing would start itself for ever), nor `ping` (sent to one webhook endpoint only).
 */
export const TRIGGER_EVENT_TYPES = [
  'message.sent',
  'message.failed',
  'message.delivered',
  'message.read',
  'message.received',
  'transcode.done',
  'transcode.failed',
  'transcode.canceled',
  'transcription.done',
  'transcription.failed',
  'speech_job.done',
  'speech_job.failed',
  'usage.threshold_reached',
  'dynadata.item.created',
  'dynadata.item.updated',
  'dynadata.item.deleted',
] as const satisfies readonly EventType[];

/** What started a run, as the run list shows it. */
export const RUN_TRIGGER_TYPES = ['api', 'event', 'schedule', 'rerun'] as const;

/** The event a run was started by, as its webhook delivery shows it. */
export interface TriggerEvent {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}

/** The trigger of a run not started through the API, kept on the run: `{{ trigger.… }}` reads it. */
export type RunTrigger =
  | { type: 'event'; event: TriggerEvent }
  | { type: 'schedule'; schedule: string; scheduledAt: string }
  /** A run started again through the API (`POST …/runs/{runId}/rerun`): the run it repeats. */
  | { type: 'rerun'; runId: string };
