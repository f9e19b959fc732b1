import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { QueueName } from '../functions/shared/types/queues';
import type { StateMachineName } from '../functions/shared/types/state-machines';
import type { DataResources } from './access';
import { MessageDelivery, type MessageSchedules } from './constructs/message-delivery';
import { SpeechJobs } from './constructs/speech-jobs';
import { TranscodeJobs } from './constructs/transcode-jobs';
import { TranscriptionJobs } from './constructs/transcription-jobs';
import { WebhookEvents } from './constructs/webhook-events';
import { WorkflowRuns } from './constructs/workflow-runs';
import { WorkflowSchedules } from './constructs/workflow-schedules';

export interface JobsStackProps extends StackProps {
  data: DataResources;
}

/**
 * The asynchronous side of the API: one state machine per kind of job (`statemachines/*.asl.json`) with the
 * worker functions its Task states call, async workflow runs (their queue and worker), and the webhook
 * events (the table's stream, the delivery queue). Each machine is built by a construct of its own under
 * `lib/constructs/`, and registered here so the API stack can grant its route groups to start and stop it.
 */
export class JobsStack extends Stack {
  readonly stateMachines: Partial<Record<StateMachineName, StateMachine>> = {};
  readonly data: DataResources;
  /** Workflow schedules: the API's workflows group saves definitions, so it manages them. */
  readonly workflowSchedules: WorkflowSchedules;
  /** Schedules of messages sent later: what sends messages (API groups, workflow steps) creates them. */
  readonly messageSchedules: MessageSchedules;
  /** The queues that drive work (with the dead-letter queue of each), for the alarms. */
  readonly queues: Partial<Record<QueueName, { queue: IQueue; deadLetters: IQueue }>> = {};

  constructor(scope: Construct, id: string, props: JobsStackProps) {
    super(scope, id, props);
    // Strong references: the data stack cannot drop an export this stack still uses.
    this.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
    this.data = props.data;
    const transcodes = new TranscodeJobs(this, 'Transcodes', { data: this.data });
    this.stateMachines.transcode = transcodes.stateMachine;
    this.stateMachines['transcode-audio'] = transcodes.audioMachine;
    const transcriptions = new TranscriptionJobs(this, 'Transcriptions', { data: this.data });
    this.stateMachines.transcription = transcriptions.stateMachine;
    const speechJobs = new SpeechJobs(this, 'SpeechJobs', { data: this.data });
    this.stateMachines['speech-job'] = speechJobs.stateMachine;
    const messages = new MessageDelivery(this, 'MessageDelivery', props);
    this.stateMachines['message-delivery'] = messages.stateMachine;
    this.messageSchedules = messages.schedules;
    // Workflow steps start the machines above: the worker is granted them, so it comes last.
    const runs = new WorkflowRuns(this, 'WorkflowRuns', {
      data: { ...this.data, stateMachines: { ...this.stateMachines } },
    });
    this.queues['workflow-run'] = { queue: runs.queue, deadLetters: runs.deadLetterQueue };
    // A workflow step may send a message later (`sendAt`).
    this.messageSchedules.grantScheduling(runs.worker, { cancel: true });
    // The dispatcher and the schedule target start the runs of triggered workflows: they send to `workflow-run`.
    const withRuns = {
      data: {
        ...this.data,
        stateMachines: { ...this.stateMachines },
        queues: { 'workflow-run': runs.queue },
      },
    };
    const events = new WebhookEvents(this, 'WebhookEvents', withRuns);
    // A job's final move is settled by the dispatcher from its stream record (decision 0065): the dispatcher
    // and its event source are updated before the functions of this stack that write the settle mark, so no
    // marked record reaches the dispatcher's version before (the API stack deploys after this one).
    for (const writer of [transcodes.worker, transcriptions.worker, speechJobs.worker, runs.worker])
      writer.node.addDependency(events.dispatcher);
    this.queues['webhook-delivery'] = { queue: events.queue, deadLetters: events.deadLetterQueue };
    new CfnOutput(this, 'WebhookDeliveryQueueUrl', {
      value: events.queue.queueUrl,
      description: 'The webhook-delivery FIFO queue (admin webhooks resend-lanes --queue-url)',
    });
    this.workflowSchedules = new WorkflowSchedules(this, 'WorkflowSchedules', withRuns);
  }
}
