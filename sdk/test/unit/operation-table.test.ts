import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../functions/shared/http/openapi';
import { operationTable } from '../../scripts/operation-table';

/**
 * The run-time facts the build reads out of the document: which operations take an idempotency key and
 * which follow the paging rule, on today's document and on lists converted to the one rule.
 */
const documentOf = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value));

const page = (itemsName: string, extra: Record<string, unknown> = {}) => ({
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          [itemsName]: { type: 'array', items: {} },
          nextCursor: { type: 'string', nullable: true },
          ...extra,
        },
      },
    },
  },
});

describe('the operation table', () => {
  const table = operationTable(documentOf(buildOpenApiDocument()));

  it('marks the POSTs that declare the Idempotency-Key header', () => {
    const keyed = Object.entries(table)
      .filter(([, facts]) => facts.idempotencyKey)
      .map(([id]) => id);
    expect(keyed).toEqual(
      expect.arrayContaining(['createDynadataItem', 'sendMessage', 'runWorkflow', 'createTranscode']),
    );
    // A POST that changes nothing, and the MCP route that refuses a key, declare none.
    expect(keyed).not.toContain('rewriteSpokenText');
    expect(keyed).not.toContain('mcp');
    expect(keyed).not.toContain('getSelf');
  });

  it('finds every list of the one rule: cursor in the body of the Dynadata list, in the query of the others', () => {
    expect(table.listDynadataItems?.page).toEqual({
      cursorIn: 'body',
      cursor: 'cursor',
      next: 'nextCursor',
      items: 'items',
    });
    const query = (items: string) => ({ cursorIn: 'query', cursor: 'cursor', next: 'nextCursor', items });
    expect(table.listEvents?.page).toEqual(query('events'));
    expect(table.listWebhookEndpoints?.page).toEqual(query('endpoints'));
    expect(table.listWorkflows?.page).toEqual(query('workflows'));
    expect(table.listDynadataTypes?.page).toEqual(query('types'));
    expect(table.getSelf?.page).toBeNull();
  });

  it('picks up a list converted to the rule: limit and cursor in the query, nextCursor out', () => {
    const converted = operationTable(
      documentOf({
        components: { parameters: { Cursor: { name: 'cursor', in: 'query', schema: { type: 'string' } } } },
        paths: {
          '/v1/transcodes': {
            get: {
              operationId: 'listTranscodes',
              parameters: [{ name: 'limit', in: 'query' }, { $ref: '#/components/parameters/Cursor' }],
              responses: { 200: page('transcodes') },
            },
          },
        },
      }),
    );
    expect(converted.listTranscodes).toEqual({
      method: 'get',
      path: '/v1/transcodes',
      idempotencyKey: false,
      page: { cursorIn: 'query', cursor: 'cursor', next: 'nextCursor', items: 'transcodes' },
      sdk: null,
    });
  });

  it('refuses a paged answer with two arrays, which the rule cannot read', () => {
    const ambiguous = documentOf({
      paths: {
        '/v1/things': {
          get: {
            operationId: 'listThings',
            parameters: [{ name: 'cursor', in: 'query' }],
            responses: { 200: page('things', { others: { type: 'array' } }) },
          },
        },
      },
    });
    expect(() => operationTable(ambiguous)).toThrow('listThings');
  });
});
