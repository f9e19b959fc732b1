import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  FAILED_WEBHOOK_ATTEMPTS,
  WEBHOOK_DELIVERY_OUTCOMES,
} from '../../functions/shared/observability/metric-names';
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

const BUSINESS = { Namespace: 'PublicApiV1' };
const SERVICE = { Name: 'service', Value: 'public-api-v1' };

/** The business-metric queries of an alarm: `{ metricName: [dimensions without service] }` per query. */
const businessQueries = (alarm: CfnResource) =>
  ((alarm.Properties.Metrics as { MetricStat?: { Metric: Record<string, unknown> } }[] | undefined) ?? [])
    .map((q) => q.MetricStat?.Metric)
    .filter((m): m is Record<string, unknown> => m?.Namespace === BUSINESS.Namespace)
    .map((m) => {
      const dimensions = m.Dimensions as { Name: string; Value: string }[];
      expect(dimensions).toContainEqual(SERVICE);
      return {
        metricName: m.MetricName,
        dimensions: Object.fromEntries(
          dimensions.filter((d) => d.Name !== 'service').map((d) => [d.Name, d.Value]),
        ),
      };
    });

interface DashboardWidget {
  type: string;
  properties: { title?: string; metrics?: unknown[][] };
}

/** The dashboard's widgets, region tokens replaced by a placeholder. */
const dashboardWidgets = (): DashboardWidget[] => {
  const dashboard = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'))[0] as CfnResource;
  const body = dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
  return (JSON.parse(text) as { widgets: DashboardWidget[] }).widgets;
};
const widget = (title: string): DashboardWidget => {
  const found = dashboardWidgets().find((w) => w.properties.title === title);
  if (!found) throw new Error(`no widget titled ${title}`);
  return found;
};
/** The business metrics of a widget as `{ metricName, dimensions }` (service checked, then left out). */
const widgetMetrics = (title: string) =>
  (widget(title).properties.metrics ?? []).flatMap((m) => {
    const [namespace, metricName, ...pairs] = m.filter((part): part is string => typeof part === 'string');
    if (namespace !== BUSINESS.Namespace) return [];
    const dimensions: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
    expect(dimensions.service).toBe(SERVICE.Value);
    delete dimensions.service;
    return [{ metricName, dimensions }];
  });
const widgetExpressions = (title: string): string[] =>
  (widget(title).properties.metrics ?? []).flatMap((m) =>
    m.flatMap((part) =>
      typeof part === 'object' && part !== null && 'expression' in part ? [String(part.expression)] : [],
    ),
  );

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

  it('alarms on dead letters and on the age of the oldest message of each queue that drives work', () => {
    const queues = Object.values(built.jobs.queues);
    expect(queues.length).toBeGreaterThan(0);
    for (const q of queues) {
      const dead = built.observability.resolve(q?.deadLetters.queueName);
      expect(alarmsOn('ApproximateNumberOfMessagesVisible', dead)).toHaveLength(1);
      const queue = built.observability.resolve(q?.queue.queueName);
      expect(alarmsOn('ApproximateAgeOfOldestMessage', queue)).toHaveLength(1);
    }
  });

  it('has one dashboard', () => {
    expect(Object.keys(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'))).toHaveLength(1);
  });

  it('alarms on requests answered 500 internal, from the Requests metric of the route groups', () => {
    const onRequests = alarms().filter((a) => businessQueries(a).some((q) => q.metricName === 'Requests'));
    expect(onRequests).toHaveLength(1);
    const alarm = onRequests[0] as CfnResource;
    expect(businessQueries(alarm)).toEqual([{ metricName: 'Requests', dimensions: { code: 'internal' } }]);
    expect(alarm.Properties).toMatchObject({
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect((alarm.Properties.Metrics as { MetricStat: { Stat: string } }[])[0]?.MetricStat.Stat).toBe('Sum');
  });

  it('alarms on the share of webhook attempts without a 2xx answer, over every attempt outcome', () => {
    const onDeliveries = alarms().filter((a) =>
      businessQueries(a).some((q) => q.metricName === 'WebhookDeliveries'),
    );
    expect(onDeliveries).toHaveLength(1);
    const alarm = onDeliveries[0] as CfnResource;
    const outcomes = businessQueries(alarm).map((q) => q.dimensions.outcome);
    expect(outcomes.sort()).toEqual(['delivered', ...FAILED_WEBHOOK_ATTEMPTS].sort());
    expect(outcomes).not.toContain('failed');
    expect(alarm.Properties).toMatchObject({ Threshold: 50, ComparisonOperator: 'GreaterThanThreshold' });
    const expression = (alarm.Properties.Metrics as { Expression?: string }[]).find((q) => q.Expression);
    expect(expression?.Expression).toMatch(/^IF\(/);
  });

  it('alarms on jobs failed by the platform, one alarm per job type, not on failures caused by the source', () => {
    const onFailures = alarms().filter((a) => businessQueries(a).some((q) => q.metricName === 'JobFailures'));
    expect(onFailures).toHaveLength(3);
    const codesOf = (jobType: string) => {
      const alarm = onFailures.find((a) => businessQueries(a).every((q) => q.dimensions.jobType === jobType));
      return businessQueries(alarm as CfnResource)
        .map((q) => q.dimensions.code)
        .sort();
    };
    expect(codesOf('transcode')).toEqual(['internal', 'start_failed', 'timeout']);
    expect(codesOf('transcription')).toEqual(['internal', 'start_failed', 'timeout']);
    expect(codesOf('speech_job')).toEqual(['internal', 'start_failed', 'timeout']);
  });

  it('graphs requests by status class and problems by code from the Requests metric', () => {
    expect(widgetMetrics('Requests by status class (route groups)')).toEqual(
      ['2xx', '4xx', '5xx'].map((statusClass) => ({ metricName: 'Requests', dimensions: { statusClass } })),
    );
    const serverProblems = widgetMetrics('5xx problems by code');
    expect(serverProblems.every((m) => m.metricName === 'Requests')).toBe(true);
    expect(serverProblems.map((m) => m.dimensions.code).sort()).toEqual([
      'internal',
      'not_implemented',
      'service_unavailable',
    ]);
    const clientProblems = widgetMetrics('4xx problems by code').map((m) => m.dimensions.code);
    expect(clientProblems).toContain('quota_exceeded');
    expect(clientProblems).toContain('validation_failed');
    expect(clientProblems).not.toContain('internal');
  });

  it('graphs webhook deliveries by every outcome', () => {
    expect(widgetMetrics('Webhook deliveries by outcome')).toEqual(
      WEBHOOK_DELIVERY_OUTCOMES.map((outcome) => ({
        metricName: 'WebhookDeliveries',
        dimensions: { outcome },
      })),
    );
  });

  it('graphs the open-ended figures (routes, meters, job transitions and failures) with SEARCH', () => {
    expect(widgetExpressions('Requests by route and status')).toEqual([
      `SEARCH('{PublicApiV1,service,route,status} MetricName="Requests"', 'Sum', 300)`,
    ]);
    expect(widgetExpressions('Billed units per meter')).toEqual([
      `SEARCH('{PublicApiV1,service,meter} MetricName="BilledUnits"', 'Sum', 300)`,
    ]);
    expect(widgetExpressions('Job transitions')).toEqual([
      `SEARCH('{PublicApiV1,service,jobType,to} MetricName="JobTransitions"', 'Sum', 300)`,
    ]);
    expect(widgetExpressions('Job failures by code')).toEqual([
      `SEARCH('{PublicApiV1,service,jobType,code} MetricName="JobFailures"', 'Sum', 300)`,
    ]);
  });

  it('traces every function actively and names its service and metrics namespace for Powertools', () => {
    const functions = [built.api, built.jobs].flatMap((stack) =>
      Object.values(resourcesOfType(Template.fromStack(stack), 'AWS::Lambda::Function')),
    ) as CfnResource[];
    expect(functions.length).toBeGreaterThan(ROUTE_GROUPS.length);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect((fn.Properties.Environment as { Variables: Record<string, string> }).Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'public-api-v1',
        POWERTOOLS_METRICS_NAMESPACE: 'PublicApiV1',
      });
    }
  });
});
