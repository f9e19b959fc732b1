import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { EVENT_TYPES } from '../../functions/shared/types/events';

/**
 * What a client generator lives on: a named schema per resource and per webhook payload, an example for every
 * answer (the lint checks each against its schema, `openapi-lint.test.ts`), typed query parameters and the
 * headers the API sends.
 */
type Content = Record<string, { example?: unknown; examples?: Record<string, unknown> }>;
type Operation = {
  operationId: string;
  parameters?: { name?: string; in?: string; schema?: { type?: string }; $ref?: string }[];
  responses: Record<string, { content?: Content; headers?: Record<string, unknown> }>;
  callbacks?: Record<string, unknown>;
};
const doc = buildOpenApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { oneOf?: unknown[]; discriminator?: { mapping: Record<string, string> } }>;
  };
};
const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));

describe('a document a generator can live on', () => {
  it('names every resource once', () => {
    for (const name of [
      'Company',
      'Plan',
      'Usage',
      'DynadataType',
      'DynadataItem',
      'StoredObject',
      'TranscodeJob',
      'TranscriptionJob',
      'Workflow',
      'WorkflowSummary',
      'WorkflowRun',
      'WebhookEndpoint',
      'Event',
      'EventDelivery',
    ])
      expect(doc.components.schemas, name).toHaveProperty(name);
    const text = JSON.stringify(doc.paths);
    expect(text).toContain('"#/components/schemas/TranscodeJob"');
    expect(text).not.toContain('#/definitions/');
  });

  it('names every webhook payload and makes Event their union by type, the callback of POST /v1/webhooks', () => {
    const event = doc.components.schemas.Event;
    expect(Object.keys(event?.discriminator?.mapping ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    for (const ref of Object.values(event?.discriminator?.mapping ?? {}))
      expect(doc.components.schemas).toHaveProperty(ref.replace('#/components/schemas/', ''));
    expect(Object.keys(doc.paths['/v1/webhooks']?.post?.callbacks ?? {})).toEqual(['event']);
  });

  it('shows an example of every answer: each success, and each problem code of each error', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, content] of Object.entries(response.content ?? {})) {
          if (type === 'image/png') continue;
          const where = `${op.operationId} ${status} ${type}`;
          if (type === 'application/problem+json') {
            const codes = (JSON.stringify(content).match(/"enum":\[([^\]]*)\]/)?.[1] ?? '').split(',');
            expect(Object.keys(content.examples ?? {}).length, where).toBe(codes.length);
          } else expect(content.example, where).toBeDefined();
        }
      }
    }
  });

  it('declares integer and boolean query parameters as such', () => {
    const query = operations.flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'query'));
    const typeOf = (name: string) => [
      ...new Set(query.filter((p) => p.name === name).map((p) => p.schema?.type)),
    ];
    expect(typeOf('limit')).toEqual(['integer']);
    expect(typeOf('expiresIn')).toEqual(['integer']);
    expect(typeOf('includeStepOutputs')).toEqual(['boolean']);
    expect(typeOf('sellableOnly')).toEqual(['boolean']);
  });

  it('declares the rate-limit headers on gated answers and WWW-Authenticate on every 401', () => {
    for (const op of operations) {
      const unauthorized = op.responses['401'];
      if (unauthorized) expect(unauthorized.headers, op.operationId).toHaveProperty('WWW-Authenticate');
      const throttled = op.responses['429'];
      if (throttled) expect(throttled.headers, op.operationId).toHaveProperty('RateLimit');
    }
    expect(doc.paths['/v1/self']?.get?.responses['200']?.headers).toHaveProperty('RateLimit-Policy');
  });
});
