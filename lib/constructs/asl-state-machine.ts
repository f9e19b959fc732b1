import { type Duration, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EXPRESS_STATE_MACHINES, type StateMachineName } from '../../functions/shared/types/state-machines';
import { nagReference } from '../nag';
import { PROJECT_ROOT } from './app-function';

export interface AslStateMachineProps {
  name: StateMachineName;
  /** Placeholders (`${Name}` in the ASL) that are Lambda functions: substituted with their ARN and granted
   * `lambda:InvokeFunction` on exactly that function. */
  functions?: Record<string, IFunction>;
  /** Other placeholder values (bucket names, role ARNs, ...). */
  substitutions?: Record<string, string>;
  /** Upper bound of one execution. */
  timeout?: Duration;
  /** ASL file; defaults to `statemachines/<name>.asl.json`. */
  definitionFile?: string;
}

/**
 * A state machine (Express when `EXPRESS_STATE_MACHINES` names it, else Standard) loaded from its ASL file, the same file the local stack runs: definition
 * substitutions for the functions and values it names, full execution logging (without execution data,
 * which may hold tenant content) to a log group kept for a month, X-Ray tracing, and invoke grants on
 * exactly the substituted functions. Service integrations a machine calls (MediaConvert, ...) are granted by
 * the construct that owns the machine, through `stateMachine.role`.
 */
export class AslStateMachine extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: AslStateMachineProps) {
    super(scope, id);
    const functions = props.functions ?? {};
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      definitionBody: DefinitionBody.fromFile(
        props.definitionFile ?? `${PROJECT_ROOT}statemachines/${props.name}.asl.json`,
      ),
      definitionSubstitutions: {
        ...Object.fromEntries(Object.entries(functions).map(([key, fn]) => [key, fn.functionArn])),
        ...props.substitutions,
      },
      // Express for a short machine whose executions need no name de-duplication, no StopExecution and no
      // history beyond the logs (at most 5 minutes; billed per request and duration instead of per state
      // transition): the machines `EXPRESS_STATE_MACHINES` names, which the local stack runs as such too.
      stateMachineType: EXPRESS_STATE_MACHINES.includes(props.name)
        ? StateMachineType.EXPRESS
        : StateMachineType.STANDARD,
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      ...(props.timeout ? { timeout: props.timeout } : {}),
    });
    const role = this.stateMachine.role;
    for (const fn of Object.values(functions)) {
      fn.grantInvoke(this.stateMachine);
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagReference(role, fn.functionArn)}:*]`,
        reason:
          'lambda:InvokeFunction on the function and its versions (`<arn>:*`), as CDK grants it: the Task ' +
          'states call exactly this function.',
      });
    }
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions execution logging and X-Ray tracing: the CloudWatch Logs delivery actions ' +
        '(logs:CreateLogDelivery, logs:DescribeResourcePolicies, ...) and xray:PutTraceSegments support no ' +
        'resource-level permissions, so "*" is their only valid resource.',
    });
  }
}
