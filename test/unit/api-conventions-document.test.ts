import { describe, expect, it } from 'vitest';
import { BUILTIN_TYPES } from '../../functions/shared/domain/dynadata/builtin-types';
import { jobIdBounds } from '../../functions/shared/domain/jobs/commands';
import { ValidationError } from '../../functions/shared/errors';
import { preferredCoding } from '../../functions/shared/http/content-coding';
import { deprecationHeaders } from '../../functions/shared/http/deprecation';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { ulid } from '../../functions/shared/ids';
import type { RouteDefinition } from '../../functions/shared/routes/route-definition';
import { ROUTES } from '../../functions/shared/routes/route-table';

/**
 * The contract conventions of `docs/openapi.md` ("Conventions: timestamps, deprecations, the document, job list
 * filters"), held over the whole route table and the generated document, so a new route or field follows them
 * without anyone remembering to: every timestamp `format: date-time`; every deprecated parameter marked at the
 * parameter and answered with `Deprecation` and `Sunset`; every job list filterable the same way.
 */
type Schema = Record<string, unknown>;
const document = buildOpenApiDocument() as Schema;
const routes = ROUTES as readonly RouteDefinition[];
const operation = (route: RouteDefinition) =>
  (document.paths as Record<string, Record<string, Schema>>)[route.path]?.[
    route.method.toLowerCase()
  ] as Schema;

/** Members that hold a point in time, by name: `createdAt`, `leaseUntil`, `startTime`, `time`, `timestamp`. */
const TIME_NAME = /(At|Until|Time|^time|^timestamp)$/;

const isString = (s: Schema): boolean =>
  s.type === 'string' || ((s.anyOf as Schema[] | undefined) ?? []).some((b) => b.type === 'string');
const isDateTime = (s: Schema): boolean =>
  s.format === 'date-time' || ((s.anyOf as Schema[] | undefined) ?? []).some((b) => b.format === 'date-time');

/** Every string member named as a time, or described as ISO 8601, with its place in the document. */
const timestampMembers = (node: unknown, at: string, out: [string, Schema][] = []): [string, Schema][] => {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) timestampMembers(v, `${at}/${i}`, out);
    return out;
  }
  if (!node || typeof node !== 'object') return out;
  const schema = node as Schema;
  for (const [name, member] of Object.entries(
    (schema.properties as Record<string, Schema> | undefined) ?? {},
  )) {
    const described = /ISO 8601|ISO date/i.test(String(member.description ?? ''));
    if ((TIME_NAME.test(name) || described) && isString(member))
      out.push([`${at}/properties/${name}`, member]);
  }
  for (const [key, value] of Object.entries(schema))
    if (key !== 'example' && key !== 'examples') timestampMembers(value, `${at}/${key}`, out);
  return out;
};

describe('rule 1: every timestamp is `format: date-time`', () => {
  const members = timestampMembers(document, '#');

  it('finds the timestamps of jobs, runs, events and keys (the walk sees them)', () => {
    const places = members.map(([place]) => place);
    for (const name of ['TranscodeJob', 'TranscriptionJob', 'SpeechJob', 'WorkflowRun'])
      expect(
        places.some((p) => p.startsWith(`#/components/schemas/${name}/`)),
        name,
      ).toBe(true);
    expect(members.length).toBeGreaterThan(50);
  });

  it.each(members)('%s', (_place, member) => {
    expect(isDateTime(member)).toBe(true);
  });

  it.each(Object.values(BUILTIN_TYPES).map((t) => [t.name, t.schema] as const))(
    'the built-in type %s declares its timestamps date-time',
    (_name, schema) => {
      for (const [, member] of timestampMembers(schema, '#')) expect(isDateTime(member)).toBe(true);
    },
  );

  it.each(
    routes.flatMap((route) =>
      ((operation(route).parameters as Schema[] | undefined) ?? [])
        .filter((p) => p.in === 'query' && /(After|Before|Since|Until|At)$/.test(String(p.name)))
        .map((p) => [`${route.operationId} ?${String(p.name)}`, p] as const),
    ),
  )('query parameter %s is a date-time', (_name, parameter) => {
    expect((parameter.schema as Schema).format).toBe('date-time');
  });
});

describe('rule 2: deprecations are marked at the parameter and answered with Deprecation and Sunset', () => {
  const declared = routes.filter((r) => r.deprecatedQuery);

  it('the events list deprecates `after` (the declaration the rule is held on)', () => {
    expect(declared.map((r) => [r.operationId, Object.keys(r.deprecatedQuery ?? {})])).toContainEqual([
      'listEvents',
      ['after'],
    ]);
  });

  it.each(
    declared.flatMap((r) =>
      Object.entries(r.deprecatedQuery ?? {}).map(
        ([name, d]) => [`${r.operationId} ?${name}`, r, name, d] as const,
      ),
    ),
  )(
    '%s: a query parameter, marked deprecated, with its headers declared',
    (_case, route, name, deprecation) => {
      expect(Object.keys(route.query?.shape ?? {})).toContain(name);
      const parameter = (operation(route).parameters as Schema[]).find(
        (p) => p.name === name && p.in === 'query',
      );
      expect(parameter?.deprecated).toBe(true);
      expect(String(parameter?.description)).toContain(`use \`${deprecation.use}\``);
      expect(Object.keys(route.query?.shape ?? {})).toContain(deprecation.use);
      expect(deprecation.since < deprecation.sunset).toBe(true);
      const success = (operation(route).responses as Record<string, Schema>)[
        String(route.successStatus ?? 200)
      ];
      expect(Object.keys((success?.headers as Schema) ?? {})).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset']),
      );
      expect(deprecationHeaders(route, { [name]: 'x' })).toEqual({
        deprecation: `@${Date.parse(`${deprecation.since}T00:00:00Z`) / 1000}`,
        sunset: new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString(),
      });
      expect(deprecationHeaders(route, {})).toEqual({});
    },
  );

  it('no parameter is deprecated anywhere but through the route declaration', () => {
    const marked = routes.flatMap((route) =>
      ((operation(route).parameters as Schema[] | undefined) ?? [])
        .filter((p) => p.deprecated === true || (p.schema as Schema | undefined)?.deprecated === true)
        .map((p) => `${route.operationId} ${String(p.name)}`),
    );
    const declaredNames = declared.flatMap((r) =>
      Object.keys(r.deprecatedQuery ?? {}).map((name) => `${r.operationId} ${name}`),
    );
    expect(marked.sort()).toEqual(declaredNames.sort());
    for (const name of marked) {
      const parameter = routes
        .flatMap((r) => (operation(r).parameters as Schema[] | undefined) ?? [])
        .find((p) => p.deprecated === true && name.endsWith(` ${String(p.name)}`));
      expect((parameter?.schema as Schema | undefined)?.deprecated).toBeUndefined();
    }
  });

  it('the headers are RFC 9745 and RFC 8594 values', () => {
    expect(
      deprecationHeaders(
        { deprecatedQuery: { after: { since: '2026-11-25', sunset: '2027-05-31', use: 'cursor' } } },
        {
          after: 'evt_x',
        },
      ),
    ).toEqual({ deprecation: '@1795564800', sunset: 'Mon, 31 May 2027 00:00:00 GMT' });
  });
});

describe('rule 3: the document is served in the coding the client prefers', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['BR', 'br'],
    ['*', 'br'],
    ['*;q=0.1, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
  ])('Accept-Encoding %s → %s', (accept, coding) => {
    expect(preferredCoding(accept, ['br', 'gzip'])).toBe(coding);
  });

  it('declares the ETag, If-None-Match and 304 on GET /v1/openapi.json', () => {
    const route = routes.find((r) => r.operationId === 'getOpenApiDocument') as RouteDefinition;
    const op = operation(route);
    expect((op.parameters as Schema[]).map((p) => p.$ref)).toContain('#/components/parameters/IfNoneMatch');
    expect(Object.keys(op.responses as Schema)).toEqual(expect.arrayContaining(['200', '304']));
  });
});

/** The job lists: `GET` routes answering `{jobs, nextCursor}`. */
const jobLists = routes.filter(
  (r) => r.method === 'GET' && 'jobs' in ((r.response as { shape?: Schema }).shape ?? {}),
);

describe('rule 5: every job list filters by status and creation time', () => {
  it('covers the transform, transcription and speech job lists', () => {
    expect(jobLists.map((r) => r.operationId).sort()).toEqual([
      'listSpeechJobs',
      'listTranscodes',
      'listTranscriptions',
    ]);
  });

  it.each(jobLists.map((r) => [r.operationId, r] as const))('%s', (_id, route) => {
    const parameters: Record<string, Schema> = Object.fromEntries(
      ((operation(route).parameters as Schema[]) ?? []).map((p) => [String(p.name), p]),
    );
    const schemaOf = (name: string) => (parameters[name]?.schema ?? {}) as Schema;
    expect(Object.keys(parameters)).toEqual(['limit', 'cursor', 'status', 'createdAfter', 'createdBefore']);
    // `status` is one of the statuses the job itself answers.
    const job = (
      (route.response as unknown as { shape: Schema }).shape.jobs as { element: { shape: Schema } }
    ).element;
    const statuses = (job.shape.status as { options: string[] }).options;
    expect(schemaOf('status').enum).toEqual(statuses);
    for (const name of ['createdAfter', 'createdBefore']) {
      expect(schemaOf(name).format).toBe('date-time');
      expect(schemaOf(name).maxLength).toBeTypeOf('number');
    }
  });

  it('a creation-time window is the range of the ids made in it', () => {
    const at = Date.parse('2026-11-29T10:00:00.000Z');
    const { lowestId, highestId } = jobIdBounds('tc_', {
      createdAfter: '2026-11-29T10:00:00.000Z',
      createdBefore: '2026-11-29T10:00:01.000Z',
    });
    const inside = [at, at + 1, at + 999].map((t) => `tc_${ulid(t)}`);
    const outside = [at - 1, at + 1000].map((t) => `tc_${ulid(t)}`);
    for (const id of inside) expect(id >= lowestId && id <= highestId, id).toBe(true);
    for (const id of outside) expect(id >= lowestId && id <= highestId, id).toBe(false);
    const open = jobIdBounds('tc_', {});
    expect(`tc_${ulid()}` >= open.lowestId && `tc_${ulid()}` <= open.highestId).toBe(true);
  });

  it('an empty window is refused at /query/createdBefore', () => {
    for (const window of [
      { createdAfter: '2026-11-29T10:00:00Z', createdBefore: '2026-11-29T10:00:00Z' },
      { createdAfter: '2026-11-29T10:00:00Z', createdBefore: '2026-11-28T10:00:00Z' },
    ]) {
      try {
        jobIdBounds('tc_', window);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).errors?.map((e) => e.pointer)).toEqual(['/query/createdBefore']);
      }
    }
  });
});
