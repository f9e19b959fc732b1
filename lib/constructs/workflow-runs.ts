import { Duration } from 'aws-cdk-lib';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, WORKFLOW_STEP_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { LAZY_MODULES } from './route-group';

/**
 * Async workflow runs: the step worker (`functions/workers/workflow-run`) and the `workflow-run` state
 * machine (a generic step loop that calls it once per step). The worker runs the same actions as a sync run
 * in the workflows route group, so it holds their calls (`WORKFLOW_STEP_ACCESS`: the engine's and every
 * action's, down to the table partitions, tenant objects, secrets, Polly and the job machines the actions
 * start). A step is bounded by its action (at most 15 s); the Task allows 120 s.
 */
export class WorkflowRuns extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    this.worker = new AppFunction(this, 'Worker', {
      entry: 'functions/workers/workflow-run/index.ts',
      description: 'Public API v1, workflow run step worker',
      access: WORKFLOW_STEP_ACCESS,
      data: props.data,
      timeout: Duration.seconds(90),
      // What the workflows route group loads on first use, outside the bundle: the spoken-text action's token
      // encoding and markdown parser, and ajv for the actions that validate Dynadata items.
      lazyModules: LAZY_MODULES.workflows,
    });
    this.stateMachine = new AslStateMachine(this, 'Machine', {
      name: 'workflow-run',
      functions: { WorkflowRunWorkerFunctionArn: this.worker },
      timeout: Duration.hours(2),
    }).stateMachine;
  }
}
