import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { ROUTES, type RouteDefinition } from '../../functions/shared/routes/route-table';
import type * as z from '../../functions/shared/zod';

/**
 * One rule for every request body: a member the operation does not declare is refused (400
 * `validation_failed` at its pointer), never dropped silently. Bodies that are the fields of a Dynadata item
 * are the exception: the item's type schema decides which fields exist, after the route's parsing.
 */

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: readonly z.ZodType[];
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  in?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Pointers of the objects in `schema` that accept (keep or drop) a member they do not declare. A schema that
 * holds itself (a step's `if`) is walked once: its nested uses are the same objects.
 */
const openObjects = (
  schema: z.ZodType,
  pointer = '/body',
  walking: ReadonlySet<z.ZodType> = new Set(),
): string[] => {
  if (walking.has(schema)) return [];
  const def = defOf(schema);
  const inside = new Set([...walking, schema]);
  const children = (list: readonly (z.ZodType | undefined)[], at = pointer) =>
    list.flatMap((s) => (s ? openObjects(s, at, inside) : []));
  switch (def.type) {
    case 'object': {
      const closed = def.catchall !== undefined && defOf(def.catchall).type === 'never';
      const members = Object.entries(def.shape ?? {}).flatMap(([name, s]) =>
        openObjects(s, `${pointer}/${name}`, inside),
      );
      // A catchall schema checks every other member, as a record's value schema does (a filter's fields).
      const checked = def.catchall !== undefined && !closed;
      if (checked) return [...members, ...children([def.catchall], `${pointer}/*`)];
      return closed ? members : [pointer, ...members];
    }
    case 'union':
      return children(def.options ?? []);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return children([def.innerType]);
    case 'array':
      return children([def.element], `${pointer}/0`);
    // A record's keys are data (a workflow's input, a step's `with`), not declared members.
    case 'record':
      return children([def.valueType], `${pointer}/*`);
    case 'intersection':
      return children([def.left, def.right]);
    case 'pipe':
      return children([def.in]);
    default:
      return [];
  }
};

const routes: readonly RouteDefinition[] = ROUTES;
const withBody = routes.filter((r): r is RouteDefinition & { body: z.ZodType } => r.body !== undefined);
/** The fields of a Dynadata item: checked against the item's type schema (built-in types are closed). */
const ITEM_FIELDS = new Set([
  'createDynadataItem',
  'validateDynadataItem',
  'updateDynadataItem',
  'upsertDynadataItem',
  // Its operations carry item fields; its own members are checked by the domain's parse of each operation.
  'batchDynadataItems',
]);
/** The schema that decides a body: the one the route parses with, or the one each function parses with. */
const decidingSchema = (r: RouteDefinition & { body: z.ZodType }): z.ZodType => {
  const documented = r.documented?.body;
  return documented && documented !== 'item-fields' ? documented : r.body;
};

describe('request bodies refuse members they do not declare', () => {
  it('covers every route with a body, and only the item-fields routes are left to the type schema', () => {
    expect(withBody.length).toBeGreaterThan(10);
    expect(withBody.filter((r) => ITEM_FIELDS.has(r.operationId)).map((r) => r.operationId)).toHaveLength(
      ITEM_FIELDS.size,
    );
  });

  it.each(withBody.filter((r) => !ITEM_FIELDS.has(r.operationId)).map((r) => [r.operationId, r] as const))(
    '%s: every object of the body is strict',
    (_id, route) => {
      expect(openObjects(decidingSchema(route))).toEqual([]);
    },
  );

  it.each(
    withBody
      .filter((r) => !ITEM_FIELDS.has(r.operationId) && r.examples?.request !== undefined)
      .map((r) => [r.operationId, r] as const),
  )('%s: its example parses, and the example with an unknown member is refused at /body', (_id, route) => {
    const schema = decidingSchema(route);
    const example = route.examples?.request as Record<string, unknown>;
    expect(schema.safeParse(example).success).toBe(true);
    const refused = schema.safeParse({ ...example, speed: 1.5 });
    expect(refused.success).toBe(false);
    // A union reports the member under each option it tried.
    expect(JSON.stringify(refused.error?.issues)).toMatch(/"code":"unrecognized_keys","keys":\["speed"\]/);
  });

  it('refuses an unknown member on POST /v1/speech and POST /v1/spoken-text', () => {
    const body = (operationId: string) => withBody.find((r) => r.operationId === operationId)?.body;
    expect(body('synthesizeSpeech')?.safeParse({ text: 'Hi.', speed: 2 }).success).toBe(false);
    expect(body('rewriteSpokenText')?.safeParse({ markdown: '# Hi', voice: 'x' }).success).toBe(false);
  });

  it('declares the rule in the document, and every strict body as additionalProperties: false', () => {
    const doc = buildOpenApiDocument() as {
      info: { description: string };
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    expect(doc.info.description).toContain('A body member an operation does not declare is refused with 400');
    const speech = doc.paths['/v1/speech']?.post?.requestBody?.content['application/json']?.schema;
    expect(speech).toMatchObject({ additionalProperties: false });
  });
});
