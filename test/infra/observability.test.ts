import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ROUTE_GROUPS } from '../../functions/shared/routes/route-table';
import { createApp } from '../../lib/app';
import { type CfnResource, resourcesOfType } from './rest-api';
import { testContext } from './synth';

// Alarms do not depend on the bundles.
const built = createApp({ context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } });
const template = Template.fromStack(built.observability);
const alarms = () => Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')) as CfnResource[];
const topicRef = () => Object.keys(resourcesOfType(template, 'AWS::SNS::Topic'))[0];

/** The alarms whose metric (or one metric of their expression) has this name and these dimensions. */
const alarmsOn = (metricName: string, dimensionValue?: unknown): CfnResource[] =>
  alarms().filter((a) => {
    const text = JSON.stringify(a.Properties);
    return (
      text.includes(`"MetricName":"${metricName}"`) &&
      (dimensionValue === undefined || text.includes(JSON.stringify(dimensionValue)))
    );
  });

describe('observability', () => {
  it('sends every alarm and its recovery to one encrypted topic that requires TLS', () => {
    const topics = resourcesOfType(template, 'AWS::SNS::Topic');
    expect(Object.keys(topics)).toHaveLength(1);
    expect(Object.values(topics)[0]?.Properties.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    expect(alarms().length).toBeGreaterThan(10);
    for (const alarm of alarms()) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicRef() }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicRef() }]);
      expect(alarm.Properties.AlarmDescription).toBeTypeOf('string');
    }
  });

  it('alarms on the API 5xx rate and p99 latency', () => {
    expect(alarmsOn('5XXError')).toHaveLength(1);
    expect(alarmsOn('Latency').filter((a) => a.Properties.ExtendedStatistic === 'p99')).toHaveLength(1);
  });

  it('alarms on errors and throttles of every route group, and on the log shipper', () => {
    const { api } = built;
    for (const group of ROUTE_GROUPS) {
      const name = built.observability.resolve(api.groups[group].function.functionName);
      expect(alarmsOn('Errors', name), group).toHaveLength(1);
      expect(alarmsOn('Throttles', name), group).toHaveLength(1);
    }
    const shipper = built.observability.resolve(api.logShipperFunction.functionName);
    expect(alarmsOn('Errors', shipper)).toHaveLength(1);
  });

  it('does not alarm on authorizer errors (every refused credential is one) but on its throttles and p99', () => {
    const authorizer = built.observability.resolve(built.api.authorizerFunction.functionName);
    expect(alarmsOn('Errors', authorizer)).toHaveLength(0);
    expect(alarmsOn('Throttles', authorizer)).toHaveLength(1);
    expect(alarmsOn('Duration', authorizer)).toHaveLength(1);
  });

  it('alarms on table throttles and system errors, and on timed-out and failing executions of each machine', () => {
    expect(alarmsOn('ThrottledRequests')).toHaveLength(1);
    expect(alarmsOn('SystemErrors')).toHaveLength(1);
    for (const machine of Object.values(built.jobs.stateMachines)) {
      const arn = built.observability.resolve(machine?.stateMachineArn);
      expect(alarmsOn('ExecutionsTimedOut', arn)).toHaveLength(1);
      expect(alarmsOn('ExecutionsFailed', arn)).toHaveLength(1);
    }
  });

  it('has one dashboard', () => {
    expect(Object.keys(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'))).toHaveLength(1);
  });
});
