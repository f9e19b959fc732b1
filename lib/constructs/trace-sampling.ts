import { Names } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';

/**
 * How many of the API's requests X-Ray records: the first `reservoirPerSecond` each second, then
 * `fixedRate` of the rest. Without a rule of its own the stage takes the account's default (1 a second, then
 * 5 %), and at volume the traces cost more than the meter's write. At 1 % a company at its plan's 200
 * requests a second still leaves two traces a second, and a quiet stage is traced in full by the reservoir.
 * The cost bench prices X-Ray from these figures (`test/bench/cost-model.ts`).
 */
export const API_TRACE_SAMPLING = { reservoirPerSecond: 1, fixedRate: 0.01 } as const;

/**
 * The sampling rule of the API's stage, matched by the stage's ARN so no other service of the account is
 * touched. Functions behind the stage follow its decision (the trace header); workers that start their own
 * traces keep the account's rules.
 */
export class ApiTraceSampling extends Construct {
  constructor(scope: Construct, id: string, props: { stage: Stage }) {
    super(scope, id);
    new CfnSamplingRule(this, 'Rule', {
      samplingRule: {
        ruleName: Names.uniqueResourceName(this, { maxLength: 32 }),
        // Above the default rule (10000), below any rule an operator adds with a smaller number.
        priority: 9000,
        reservoirSize: API_TRACE_SAMPLING.reservoirPerSecond,
        fixedRate: API_TRACE_SAMPLING.fixedRate,
        serviceName: '*',
        serviceType: 'AWS::ApiGateway::Stage',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: props.stage.stageArn,
        version: 1,
      },
    });
  }
}
