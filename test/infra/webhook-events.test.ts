import { marshall } from '@aws-sdk/util-dynamodb';
import { Template } from 'aws-cdk-lib/assertions';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { WebhookEvents } from '../../lib/constructs/webhook-events';
import { WorkflowRuns } from '../../lib/constructs/workflow-runs';
import { logicalIdOf, synthesizeApp } from './synth';

// The dispatcher's rule, beside the event source's filter: its module reads these names at load (no call).
Object.assign(process.env, {
  TABLE_NAME: process.env.TABLE_NAME ?? 'infra-table',
  BUCKET_NAME: process.env.BUCKET_NAME ?? 'infra-bucket',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_XRAY_MANUAL_MODE: 'true',
});
const { isDispatchable } = await import('../../functions/workers/event-dispatcher/index');

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const events = built.jobs.node.findAll().find((c): c is WebhookEvents => c instanceof WebhookEvents);
const runs = built.jobs.node.findAll().find((c): c is WorkflowRuns => c instanceof WorkflowRuns);
if (!runs) throw new Error('the jobs stack has no WorkflowRuns construct');
if (!events) throw new Error('the jobs stack has no WebhookEvents construct');

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (role: Parameters<typeof logicalIdOf>[0]): Statement[] =>
  Object.values(
    jobsTemplate.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: logicalIdOf(role) }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );
const actionsOf = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

describe('events to webhooks (jobs stack)', () => {
  it('streams the table with old and new images', () => {
    Template.fromStack(built.data).hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
  });

  it('feeds the dispatcher only new events, changed usage months, marked Dynadata item and job writes and types being deleted, with partial batch responses', () => {
    jobsTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(events.dispatcher) },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { NewImage: { entity: { S: ['event'] } } },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              dynamodb: { Keys: { sk: { S: [{ prefix: 'M#' }] } } },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              dynamodb: {
                NewImage: {
                  entity: { S: ['dd_item', 'transcode_job', 'transcription_job', 'speech_job'] },
                  _streamed: { BOOL: [true] },
                },
              },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['REMOVE'],
              dynamodb: { OldImage: { entity: { S: ['dd_item'] }, _streamed: { BOOL: [true] } } },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['MODIFY'],
              dynamodb: { NewImage: { entity: { S: ['dd_type'] }, status: { S: ['deleting'] } } },
            }),
          },
        ],
      },
    });
  });

  it('passes exactly the records the dispatcher passes by its own rule (`isDispatchable`)', () => {
    const mapping = Object.values(jobsTemplate.findResources('AWS::Lambda::EventSourceMapping')).find(
      (m) =>
        JSON.stringify(m).includes(logicalIdOf(events.dispatcher)) && JSON.stringify(m).includes('Filters'),
    ) as { Properties: { FilterCriteria: { Filters: { Pattern: string }[] } } };
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f) => JSON.parse(f.Pattern));
    // The rules the patterns use: a list of values or prefixes at a leaf, nested objects otherwise.
    const matches = (pattern: unknown, value: unknown): boolean =>
      Array.isArray(pattern)
        ? pattern.some((p) =>
            typeof p === 'object' && p !== null && 'prefix' in p
              ? typeof value === 'string' && value.startsWith(String(p.prefix))
              : p === value,
          )
        : Object.entries(pattern as Record<string, unknown>).every(([key, inner]) =>
            matches(inner, (value as Record<string, unknown> | undefined)?.[key]),
          );
    const record = (
      eventName: DynamoDBRecord['eventName'],
      sk: string,
      images: { NewImage?: Record<string, unknown>; OldImage?: Record<string, unknown> },
    ): DynamoDBRecord => ({
      eventName,
      dynamodb: {
        Keys: marshall({ pk: 'CO#c1#X', sk }) as never,
        ...(images.NewImage ? { NewImage: marshall(images.NewImage) as never } : {}),
        ...(images.OldImage ? { OldImage: marshall(images.OldImage) as never } : {}),
      },
    });
    const item = { entity: 'dd_item', _version: 1, _streamed: true };
    // An item of `messages`, or one written before change events came from the stream: no `_streamed`.
    const unmarked = { entity: 'dd_item', _version: 1 };
    const records = ['INSERT', 'MODIFY', 'REMOVE'].flatMap((name) => {
      const eventName = name as DynamoDBRecord['eventName'];
      return [
        record(eventName, 'EV#evt_1', { NewImage: { entity: 'event' }, OldImage: { entity: 'event' } }),
        record(eventName, 'M#2026-11', { NewImage: { entity: 'usage' }, OldImage: { entity: 'usage' } }),
        record(eventName, 'M#2026-11#S01', eventName === 'INSERT' ? { NewImage: { entity: 'usage' } } : {}),
        record(eventName, 'orders', { NewImage: { entity: 'dd_type', status: 'deleting' } }),
        record(eventName, 'orders', { NewImage: { entity: 'dd_type', status: 'active' } }),
        record(
          eventName,
          'i1',
          eventName === 'REMOVE' ? { OldImage: item } : { NewImage: item, OldImage: item },
        ),
        record(eventName, 'i1', { OldImage: item }),
        record(
          eventName,
          'u1',
          eventName === 'REMOVE' ? { OldImage: unmarked } : { NewImage: unmarked, OldImage: unmarked },
        ),
        record(eventName, 'u2', { NewImage: item, OldImage: unmarked }),
        // A job's final move carries its settle mark (0065); its earlier moves and the version before do not.
        ...['transcode_job', 'transcription_job', 'speech_job'].flatMap((entity) => [
          record(eventName, 'JOB#j1', {
            NewImage: { entity, status: 'done', _streamed: true, _settle: { attempt: 1 } },
            OldImage: { entity, status: 'finalizing' },
          }),
          record(eventName, 'JOB#j2', { NewImage: { entity, status: 'done' }, OldImage: { entity } }),
          record(eventName, 'JOB#j3', { OldImage: { entity, status: 'done', _streamed: true } }),
        ]),
        record(eventName, 'QUEUE', { NewImage: { entity: 'transcode_queue', _streamed: true } }),
        record(eventName, 'l1', { NewImage: { entity: 'log_entry' }, OldImage: { entity: 'log_entry' } }),
        record(eventName, 'x', { NewImage: { entity: 'delivery' } }),
      ];
    });
    for (const r of records)
      expect([r.eventName, r.dynamodb?.Keys?.sk?.S, patterns.some((p) => matches(p, r))]).toEqual([
        r.eventName,
        r.dynamodb?.Keys?.sk?.S,
        isDispatchable(r),
      ]);
    expect(records.filter(isDispatchable).length).toBeGreaterThan(5);
  });

  it('updates the dispatcher and its event source before the functions that write a job settle mark (0065)', () => {
    const resources = jobsTemplate.toJSON().Resources as Record<
      string,
      { Type: string; DependsOn?: string[] }
    >;
    const [mappingId] =
      Object.entries(resources).find(
        ([, r]) =>
          r.Type === 'AWS::Lambda::EventSourceMapping' &&
          JSON.stringify(r).includes(logicalIdOf(events.dispatcher)) &&
          JSON.stringify(r).includes('Filters'),
      ) ?? [];
    const writers = Object.entries(resources).filter(
      ([id, r]) =>
        r.Type === 'AWS::Lambda::Function' &&
        /^(Transcodes|Transcriptions|SpeechJobs|WorkflowRuns)Worker/.test(id),
    );
    expect(writers.map(([id]) => id.replace(/Worker.*/, ''))).toEqual([
      'Transcodes',
      'Transcriptions',
      'SpeechJobs',
      'WorkflowRuns',
    ]);
    for (const [, writer] of writers)
      expect(writer.DependsOn).toEqual(expect.arrayContaining([mappingId, logicalIdOf(events.dispatcher)]));
  });

  it('lets the dispatcher read the stream and send only to the webhook-delivery and workflow-run queues, starting no execution', () => {
    const statements = statementsOf(events.dispatcher.role as never);
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']),
    );
    expect(actions.filter((a) => a.startsWith('states:'))).toEqual([]);
    // Deliveries go by their queue, the runs of workflows the events trigger (`on.events`) by theirs.
    const send = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
    expect(send.flatMap((s) => [s.Action].flat())).toEqual(['sqs:SendMessage']);
    expect([send[0]?.Resource].flat()).toEqual(
      expect.arrayContaining([
        { 'Fn::GetAtt': [logicalIdOf(events.queue), 'Arn'] },
        { 'Fn::GetAtt': [logicalIdOf(runs.queue), 'Arn'] },
      ]),
    );
    expect([send[0]?.Resource].flat()).toHaveLength(2);
    const stream = statements.find((s) => [s.Action].flat().includes('dynamodb:GetRecords'));
    expect(JSON.stringify(stream?.Resource)).toContain('StreamArn');
  });

  it('gives the delivery worker the table and its own queue only: no executions, no bucket, no other queue, no lane', () => {
    const statements = statementsOf(events.worker.role as never);
    const actions = actionsOf(statements);
    expect(actions.filter((a) => a.startsWith('states:') || a.startsWith('s3:'))).toEqual([]);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'sqs:ChangeMessageVisibility']),
    );
    // The order is the queue's: the worker queries, deletes and sends nothing.
    for (const gone of ['dynamodb:Query', 'dynamodb:DeleteItem', 'sqs:SendMessage'])
      expect(actions).not.toContain(gone);
    const queueArn = { 'Fn::GetAtt': [logicalIdOf(events.queue), 'Arn'] };
    for (const statement of statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('sqs:'))))
      expect(statement.Resource).toEqual(queueArn);
  });

  it('drives deliveries by an encrypted FIFO queue (message groups, high throughput) with a FIFO dead-letter queue', () => {
    // No state machine calls the delivery worker any more.
    const machines = Object.values(jobsTemplate.findResources('AWS::StepFunctions::StateMachine'));
    expect(machines.length).toBeGreaterThan(0);
    for (const machine of machines) expect(JSON.stringify(machine)).not.toContain(logicalIdOf(events.worker));
    const queues = jobsTemplate.findResources('AWS::SQS::Queue');
    const queue = queues[logicalIdOf(events.queue)] as {
      Properties: Record<string, unknown> & { VisibilityTimeout: number; RedrivePolicy: unknown };
    };
    expect(queue.Properties).toMatchObject({
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
    });
    expect(queue.Properties.ContentBasedDeduplication).toBeUndefined();
    expect(queues[logicalIdOf(events.deadLetterQueue)]).toMatchObject({ Properties: { FifoQueue: true } });
    // More receives than a delivery's attempts in its window (61) and its group's until the endpoint is
    // disabled (about 150): a message reaches the dead-letter queue only when its handling keeps failing.
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(events.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 250,
    });
    const worker = jobsTemplate.findResources('AWS::Lambda::Function')[logicalIdOf(events.worker)] as {
      Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> } };
    };
    // A batch of one group (10 attempts of 10 s at most) fits the worker's time; a failed message comes back
    // after it.
    expect(worker.Properties.Timeout).toBeGreaterThanOrEqual(100);
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThan(worker.Properties.Timeout);
    expect(worker.Properties.Environment.Variables).not.toHaveProperty('WEBHOOK_LEASE_SECONDS');
    jobsTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(events.worker) },
      EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(events.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});
