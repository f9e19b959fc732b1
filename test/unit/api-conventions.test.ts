import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../functions/shared/errors';
import { problemSchema, RESOURCE_STATUS_MEMBERS } from '../../functions/shared/http/openapi-problems';
import {
  documentResponses,
  memberSchema,
  requiredMembers,
  routeOf,
  routes,
  successAnswers,
} from './api-conventions-support';

/**
 * The conventions of the API's answers (docs/openapi.md, Conventions), held over the route table: one
 * `describe` per rule, each with its own table of rows. A new route the rule covers gets a row (the
 * completeness checks fail until it has one); a rule of its own goes in its own file, with its own table.
 */

/** Rule 1: every operation that starts asynchronous work answers 202 when it does. */
const ASYNC_STARTS: readonly { operationId: string; also?: true; why: string }[] = [
  { operationId: 'createTranscode', why: 'enqueues a transcode job' },
  { operationId: 'retryTranscode', why: 're-enqueues a transcode job' },
  { operationId: 'createTranscription', why: 'enqueues a transcription job' },
  { operationId: 'createSpeechJob', why: 'enqueues a speech job' },
  { operationId: 'sendMessage', why: 'queues (or schedules) a delivery' },
  { operationId: 'testWebhookEndpoint', why: 'queues the delivery of a ping event' },
  { operationId: 'redeliverEvent', why: 'queues a delivery again' },
  { operationId: 'runWorkflow', also: true, why: 'an async run, or a sync one past its deadline' },
  { operationId: 'rerunWorkflowRun', also: true, why: 'likewise' },
  { operationId: 'deleteDynadataType', also: true, why: 'deletes the items in the background' },
];

describe('rule 1: an operation that starts asynchronous work answers 202', () => {
  it.each(ASYNC_STARTS)('$operationId ($why)', ({ operationId, also }) => {
    const route = routeOf(operationId);
    const statuses = successAnswers(route).map((answer) => answer.status);
    if (also) expect(statuses).toContain(202);
    else expect(route.successStatus).toBe(202);
    expect(statuses.filter((status) => status === 201)).toEqual([]);
  });

  it('holds every enqueue of a job (a POST on a collection that answers `{ job }`)', () => {
    const enqueues = routes.filter(
      (r) =>
        r.method === 'POST' &&
        !r.path.includes('{') &&
        requiredMembers(successAnswers(r)[0]?.schema ?? {}).includes('job'),
    );
    expect(enqueues.length).toBeGreaterThan(0);
    for (const r of enqueues) {
      expect(
        ASYNC_STARTS.map((row) => row.operationId),
        r.operationId,
      ).toContain(r.operationId);
    }
  });
});

/** Rule 2: every DELETE answers 200 `{ deleted, …identifiers }`; never 204. */
const DELETES: readonly { operationId: string; identifiers: readonly string[] }[] = [
  { operationId: 'revokeApiKey', identifiers: ['id'] },
  { operationId: 'deleteDynadataType', identifiers: ['name'] },
  { operationId: 'deleteDynadataItem', identifiers: ['_id'] },
  { operationId: 'abortMultipartUpload', identifiers: ['id'] },
  { operationId: 'deleteFile', identifiers: ['bucket', 'fullPath'] },
  { operationId: 'deleteWorkflowSecret', identifiers: ['name'] },
  { operationId: 'deleteWorkflow', identifiers: ['id'] },
  { operationId: 'deleteWebhookEndpoint', identifiers: ['id'] },
  // The company has one channel: nothing to name.
  { operationId: 'deleteMessageChannel', identifiers: [] },
];

describe('rule 2: a DELETE answers 200 with `deleted` and what names the resource', () => {
  it('has a row for every DELETE of the table', () => {
    expect(
      routes
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.operationId)
        .sort(),
    ).toEqual(DELETES.map((row) => row.operationId).sort());
  });

  it.each(DELETES)('$operationId: { deleted, $identifiers }', ({ operationId, identifiers }) => {
    const route = routeOf(operationId);
    expect(route.successStatus ?? 200).toBe(200);
    for (const { status, schema } of successAnswers(route)) {
      expect([200, 202]).toContain(status);
      expect(requiredMembers(schema)).toEqual(expect.arrayContaining(['deleted', ...identifiers]));
      expect(memberSchema(schema, 'deleted')?.type).toBe('boolean');
    }
  });
});

/**
 * Rule 3: an answer that is one resource carries it in one member named after its kind, the same at every
 * operation of the resource; `read` is its GET (with an `ETag`, rule 4), `writes` the operations that answer it
 * after changing it. `envelope: null`: answered as itself (an exception of the spec, listed in the docs).
 */
const RESOURCES: readonly { envelope: string | null; read?: string; writes: readonly string[] }[] = [
  { envelope: 'company', read: 'getSelf', writes: [] },
  // The OpenAPI document itself, as the OpenAPI specification shapes it: not a resource of the API.
  { envelope: null, read: 'getOpenApiDocument', writes: [] },
  { envelope: 'key', read: 'getApiKey', writes: ['createApiKey'] },
  { envelope: 'message', writes: ['cancelMessage', 'reportMessageStatus'] },
  { envelope: 'type', read: 'getDynadataType', writes: ['putDynadataType'] },
  {
    envelope: null,
    read: 'getDynadataItem',
    writes: ['createDynadataItem', 'updateDynadataItem', 'upsertDynadataItem'],
  },
  { envelope: 'upload', read: 'getMultipartUpload', writes: ['createMultipartUpload'] },
  { envelope: 'job', read: 'getTranscription', writes: ['createTranscription'] },
  { envelope: 'job', read: 'getTranscode', writes: ['createTranscode', 'cancelTranscode', 'retryTranscode'] },
  { envelope: 'job', read: 'getSpeechJob', writes: ['createSpeechJob', 'cancelSpeechJob'] },
  { envelope: 'secret', read: 'getWorkflowSecret', writes: ['putWorkflowSecret'] },
  { envelope: 'workflow', read: 'getWorkflow', writes: ['putWorkflow'] },
  { envelope: 'workflow', read: 'getWorkflowVersion', writes: [] },
  { envelope: 'run', read: 'getWorkflowRun', writes: ['cancelWorkflowRun'] },
  {
    envelope: 'endpoint',
    read: 'getWebhookEndpoint',
    writes: ['createWebhookEndpoint', 'updateWebhookEndpoint', 'rotateWebhookSecret'],
  },
  { envelope: 'event', read: 'getEvent', writes: ['testWebhookEndpoint', 'redeliverEvent'] },
  {
    envelope: 'channel',
    read: 'getMessageChannel',
    writes: ['putMessageChannel', 'rotateMessageChannelSecret'],
  },
];

/** The shapes the spec fixes, answered as it says (docs/openapi.md lists them), with the members it names. */
const SPEC_FIXED: readonly { operationId: string; status: number; members: readonly string[] }[] = [
  { operationId: 'runWorkflow', status: 200, members: ['ok', 'result', 'files', 'logs', 'runId'] },
  { operationId: 'runWorkflow', status: 202, members: ['runId'] },
  { operationId: 'rerunWorkflowRun', status: 200, members: ['ok', 'result', 'files', 'logs', 'runId'] },
  { operationId: 'rerunWorkflowRun', status: 202, members: ['runId'] },
  { operationId: 'completeUpload', status: 200, members: ['bucket', 'fullPath'] },
  { operationId: 'completeMultipartUpload', status: 200, members: ['bucket', 'fullPath'] },
  { operationId: 'synthesizeSpeech', status: 201, members: ['bucket', 'fullPath', 'size', 'format'] },
  { operationId: 'getUsage', status: 200, members: ['success', 'usage'] },
];

describe('rule 3: one resource is answered in one envelope, the same at every operation', () => {
  it('has a row for every single-resource read (a route with an ETag)', () => {
    const reads = RESOURCES.flatMap((row) => (row.read ? [row.read] : []));
    for (const r of routes.filter((route) => route.etag))
      expect(reads, r.operationId).toContain(r.operationId);
  });

  it.each(RESOURCES.filter((row) => row.envelope !== null))(
    '{ $envelope }: $read, $writes',
    ({ envelope, read, writes }) => {
      for (const operationId of [...(read ? [read] : []), ...writes]) {
        for (const { status, schema } of successAnswers(routeOf(operationId))) {
          expect(requiredMembers(schema), `${operationId} ${status}`).toContain(envelope);
        }
      }
    },
  );

  it.each(SPEC_FIXED)(
    '$operationId $status keeps the shape the spec fixes',
    ({ operationId, status, members }) => {
      const answer = successAnswers(routeOf(operationId)).find((a) => a.status === status);
      expect(answer, `${operationId} answers ${status}`).toBeDefined();
      for (const member of members) expect(answer?.schema.properties, member).toHaveProperty(member);
    },
  );
});

describe('rule 4: an answer that holds a resource with an ETag carries its ETag', () => {
  const withTag = RESOURCES.filter((row) => row.read && routeOf(row.read).etag);

  it.each(withTag)('$read: $writes', ({ envelope, writes }) => {
    for (const operationId of writes) {
      const route = routeOf(operationId);
      expect(route.answersEtag, operationId).toBe(envelope ?? true);
      for (const { status } of successAnswers(route)) {
        expect(documentResponses(route)[String(status)]?.headers, `${operationId} ${status}`).toHaveProperty(
          'ETag',
        );
      }
    }
  });

  it('holds every write that honours If-Match, but a DELETE (whose resource is gone)', () => {
    const writes = withTag.flatMap((row) => row.writes);
    for (const r of routes.filter((route) => route.ifMatch && route.method !== 'DELETE'))
      expect(writes, r.operationId).toContain(r.operationId);
  });
});

describe('rule 5: a refusal because of a resource status carries that status', () => {
  const refusals = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) =>
    /_not_(cancelable|retryable)$/.test(code),
  );
  const members = RESOURCE_STATUS_MEMBERS as Partial<Record<ErrorCode, { member: string; example: string }>>;

  it.each(refusals)('%s names its status member, declared on the problem', (code) => {
    const carried = members[code];
    expect(carried, code).toBeDefined();
    expect(carried?.member).not.toBe('status');
    expect(problemSchema.properties).toHaveProperty(String(carried?.member));
  });

  it.each(refusals)('%s: every operation answering it shows the member in its example', (code) => {
    const member = String(members[code]?.member);
    const answering = routes.filter((r) => (r.errors ?? []).includes(code));
    expect(answering.length, code).toBeGreaterThan(0);
    for (const r of answering) {
      const response = documentResponses(r)[String(ERROR_CATALOG[code].status)];
      const example = response?.content?.['application/problem+json']?.examples?.[code]?.value;
      expect(example, `${r.operationId} ${code}`).toHaveProperty(member);
    }
  });
});
