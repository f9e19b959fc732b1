import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, synthesizeApp } from './synth';

// The failure destination, its queue and alarm do not depend on the bundles.
const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const api = built.apiTemplate;
const shipper = built.api.logShipperFunction;
const queueId = logicalIdOf(built.api.logShipperFailures);

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
const shipperStatements = (): Statement[] =>
  Object.values(
    api.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: logicalIdOf(shipper.role as never) }] },
    }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );

describe('log shipper failures (API stack)', () => {
  it('parks an invocation whose retries or age run out on the failure queue', () => {
    api.resourceCountIs('AWS::Lambda::EventInvokeConfig', 1);
    api.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalIdOf(shipper) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it('keeps parked invocations encrypted for 14 days, over TLS only, with no consumer', () => {
    const queue = resourcesOfType(api, 'AWS::SQS::Queue')[queueId];
    expect(queue?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    expect(queue?.Properties.RedrivePolicy).toBeUndefined();
    api.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Deny',
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
        ],
      },
    });
    const consumers = Object.values(resourcesOfType(api, 'AWS::Lambda::EventSourceMapping')).filter((m) =>
      JSON.stringify(m.Properties).includes(`"${queueId}"`),
    );
    expect(consumers).toEqual([]);
  });

  it('lets the shipper only send to its failure queue, and nothing else of SQS', () => {
    const sqs = shipperStatements().filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
    expect(sqs).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    ]);
  });

  it('names the queue for the redrive in an output', () => {
    api.hasOutput('LogShipperFailureQueueUrl', { Value: { Ref: queueId } });
  });
});

describe('log shipper failures (observability stack)', () => {
  it('alarms, through the alarm topic, as soon as one invocation is parked', () => {
    const template = Template.fromStack(built.observability);
    const queueName = built.observability.resolve(built.api.logShipperFailures.queueName);
    const onQueue = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
      JSON.stringify(a.Properties.Dimensions ?? []).includes(JSON.stringify(queueName)),
    );
    expect(onQueue).toHaveLength(1);
    const topic = Object.keys(resourcesOfType(template, 'AWS::SNS::Topic'))[0];
    expect(onQueue[0]?.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      AlarmActions: [{ Ref: topic }],
      OKActions: [{ Ref: topic }],
    });
    expect(onQueue[0]?.Properties.AlarmDescription).toContain('log-shipper redrive');
  });
});
