import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../functions/shared/domain/dynadata/list-filter';
import {
  type ListFilter,
  listFilterSchema,
  listRequestSchema,
  MAX_FILTER_DEPTH,
  MAX_FILTER_TERMS,
} from '../../functions/shared/domain/dynadata/list-request';
import type { ResolvedType } from '../../functions/shared/domain/dynadata/types';
import { ValidationError } from '../../functions/shared/errors';

const tickets: ResolvedType = {
  name: 'tickets',
  description: '',
  builtIn: false,
  writable: true,
  schema: {
    type: 'object',
    properties: {
      status: { enum: ['open', 'closed'] },
      priority: { type: 'integer' },
      owner: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      open: { type: 'boolean' },
    },
  },
  indexed: ['priority', 'owner'],
  functions: [],
};

const pointers = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return (error.errors ?? []).map((e) => e.pointer);
    throw error;
  }
  return [];
};

/** The filter expression with its placeholders replaced by what they stand for, to read it as a whole. */
const readable = (type: ResolvedType, filter: Parameters<typeof compileFilter>[1], sort?: string) => {
  const { filter: f, keyCondition } = compileFilter(type, filter, sort);
  let text = f?.expression ?? '';
  for (const [ref, name] of Object.entries(f?.names ?? {}).reverse()) text = text.replaceAll(ref, name);
  for (const [ref, value] of Object.entries(f?.values ?? {}).reverse())
    text = text.replaceAll(ref, JSON.stringify(value));
  return { text, keyCondition };
};

describe('list filter compiler', () => {
  it('compiles _or, _not and contains with parentheses, ANDed with the top-level conditions', () => {
    const { text, keyCondition } = readable(tickets, {
      status: 'open',
      _or: [{ priority: { gte: 3 } }, { owner: 'ann' }],
      _not: { tags: { contains: 'spam' } },
    });
    expect(text).toBe(
      'data.status = "open" AND (data.priority >= 3 OR data.owner = "ann") AND (NOT (contains(data.tags, "spam")))',
    );
    expect(keyCondition).toBeUndefined();
  });

  it('takes key ranges only from top-level ANDed conditions, never from _or or _not', () => {
    expect(readable(tickets, { _id: { gte: '01A' } }).keyCondition?.expression).toBe('#sk >= :klo');
    expect(readable(tickets, { _and: [{ _id: { lte: '01Z' } }] }).keyCondition?.expression).toBe(
      '#sk <= :khi',
    );
    expect(
      readable(tickets, { _or: [{ _id: { gte: '01A' } }, { owner: 'x' }] }).keyCondition,
    ).toBeUndefined();
    expect(readable(tickets, { _not: { _id: { gte: '01A' } } }).keyCondition).toBeUndefined();
  });

  it('narrows the index range of the sorted numeric field and a string field’s lower bound', () => {
    const numeric = readable(tickets, { priority: { gte: 2, lt: 5 } }, 'priority').keyCondition;
    expect(numeric?.expression).toBe('#sk BETWEEN :klo AND :khi');
    expect(String(numeric?.values[':klo'])).toMatch(/^n[0-9a-f]{16}#$/);
    const text = readable(tickets, { owner: { gt: 'b' } }, 'owner').keyCondition;
    expect(text?.values).toEqual({ ':klo': 'sb' });
    expect(readable(tickets, { owner: { lt: 'b' } }, 'owner').keyCondition).toBeUndefined();
  });

  it('compares log entry ids on the sort key attribute under _or', () => {
    const logs = {
      ...tickets,
      name: 'log_entries',
      indexed: [],
      schema: { properties: { method: { type: 'string' } } },
    };
    const { text } = readable(logs, { _or: [{ _id: { gte: '000001700000000-abc' } }, { method: 'GET' }] });
    expect(text).toBe('(sk >= "000001700000000#abc" OR method = "GET")');
  });

  it('refuses contains on a field that is neither string nor array, unknown fields and too many terms', () => {
    expect(pointers(() => compileFilter(tickets, { priority: { contains: 3 } }))).toEqual([
      '/body/filter/priority/contains',
    ]);
    expect(pointers(() => compileFilter(tickets, { status: { contains: 'pe' } }))).toEqual([]);
    expect(pointers(() => compileFilter(tickets, { open: { contains: true } }))).toEqual([
      '/body/filter/open/contains',
    ]);
    expect(pointers(() => compileFilter(tickets, { _or: [{ status: 'a' }, { nope: 1 }] }))).toEqual([
      '/body/filter/_or/1/nope',
    ]);
    expect(pointers(() => compileFilter(tickets, { _not: {} }))).toEqual(['/body/filter/_not']);
    const wide = {
      _or: Array.from({ length: 20 }, () => ({ owner: { in: ['a', 'b', 'c', 'd', 'e', 'f'] } })),
    };
    expect(MAX_FILTER_TERMS).toBeLessThan(120);
    expect(pointers(() => compileFilter(tickets, wide))).toEqual(['/body/filter']);
  });

  it('keeps the expression within DynamoDB’s 4 KB at the largest filter allowed', () => {
    const big = {
      _or: Array.from({ length: 10 }, () => ({
        _and: Array.from({ length: 10 }, () => ({ _not: { status: { ne: 'x'.repeat(20) } } })),
      })),
    };
    const { filter } = compileFilter(tickets, big);
    expect(filter?.expression.length).toBeLessThan(4096);
  });

  it('bounds nesting: a group below the deepest level is refused at its pointer', () => {
    let filter: ListFilter = { status: 'open' };
    for (let level = 1; level < MAX_FILTER_DEPTH; level++) filter = { _not: filter };
    expect(listFilterSchema().safeParse(filter).success).toBe(true);
    expect(pointers(() => compileFilter(tickets, filter))).toEqual([]);
    expect(pointers(() => compileFilter(tickets, { _or: [{ owner: 'a' }, filter] }))).toEqual([
      `/body/filter/_or/1${'/_not'.repeat(MAX_FILTER_DEPTH - 1)}`,
    ]);
    expect(listRequestSchema().safeParse({ fields: ['a'], filter: { _or: [] } }).success).toBe(false);
  });
});
