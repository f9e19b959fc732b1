import { cursorField } from '../../fields';
import { lazy } from '../../lazy';
import * as z from '../../zod';

/**
 * What a list (and a filtered count) asks for: filter, sort, page size and cursor. The domain owns the shape;
 * the list route validates its body with it and publishes it in the OpenAPI document.
 */
/** The longest string a filter compares with: far above any indexed value, it keeps a filter's size bounded. */
export const MAX_FILTER_STRING_LENGTH = 1024;
const filterString = () => z.string().max(MAX_FILTER_STRING_LENGTH);
const scalar = /* @__PURE__ */ lazy(() => z.union([filterString(), z.number(), z.boolean(), z.null()]));
const conditionSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      eq: scalar().optional(),
      ne: scalar().optional(),
      gt: z.union([filterString(), z.number()]).optional(),
      gte: z.union([filterString(), z.number()]).optional(),
      lt: z.union([filterString(), z.number()]).optional(),
      lte: z.union([filterString(), z.number()]).optional(),
      in: z.array(scalar()).min(1).max(100).optional(),
      exists: z.boolean().optional(),
      prefix: filterString().min(1).optional(),
      contains: scalar()
        .optional()
        .describe('A substring of a string field, or an element of an array field.'),
    })
    .strict()
    .describe('Operators on one field, ANDed.'),
);

/**
 * How deep logical groups nest: the filter itself is level 1, and each `_and`, `_or` or `_not` opens the next
 * level. A filter at the deepest level takes field conditions only.
 */
export const MAX_FILTER_DEPTH = 4;
/** The most conditions a filter holds: each operator on a field counts one, an `in` one per value. */
export const MAX_FILTER_TERMS = 100;
/** The most members of one `_and` or `_or` list. */
const MAX_GROUP_MEMBERS = 20;

/**
 * A filter: conditions on fields, ANDed, and the groups `_and`, `_or` and `_not` (recursive, as the workflow
 * condition is: the OpenAPI document names it `DynadataFilterInput`, a request-only schema). A body nests at
 * most `MAX_JSON_DEPTH` levels, and the compiler refuses groups deeper than `MAX_FILTER_DEPTH` with a pointer.
 */
export const listFilterSchema = /* @__PURE__ */ lazy(() => {
  const group = (description: string) =>
    z.array(filter).min(1).max(MAX_GROUP_MEMBERS).optional().describe(description);
  const filter: z.ZodType<ListFilter> = z
    .object({
      get _and() {
        return group('Every filter of the list holds.');
      },
      get _or() {
        return group('At least one filter of the list holds.');
      },
      get _not() {
        return filter.optional().describe('The filter does not hold.');
      },
    })
    .catchall(z.union([scalar(), conditionSchema()]))
    .describe(
      'Conditions on top-level fields, ANDed: a value (equality) or an operator object. `_and: [filter, …]`, ' +
        `\`_or: [filter, …]\` (1 to ${MAX_GROUP_MEMBERS} each) and \`_not: filter\` group filters, nested at most ` +
        `${MAX_FILTER_DEPTH} levels deep; a filter holds at most ${MAX_FILTER_TERMS} conditions (an \`in\` counts ` +
        'one per value). Field names never start with `_`, so no field is shadowed by a group.',
    ) as unknown as z.ZodType<ListFilter>;
  return filter;
});

/** Field names of the type a list or get answers, besides the system fields (always answered). */
export const MAX_PROJECTED_FIELDS = 50;

export const listRequestSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      filter: listFilterSchema().optional(),
      fields: z
        .array(z.string().min(1).max(256))
        .min(1)
        .max(MAX_PROJECTED_FIELDS)
        .optional()
        .describe(
          'Answer only these fields of each item, besides `_id`, `_version`, `createdAt` and `updatedAt` ' +
            '(always answered). Default: every field.',
        ),
      sort: z
        .object({
          field: z
            .string()
            .max(256)
            .default('_id')
            .describe('`_id` (creation order) or one of the type’s indexed fields (`x-indexed`).'),
          order: z.enum(['asc', 'desc']).default('desc'),
        })
        .strict()
        .optional()
        .describe('Default: `{field: "_id", order: "desc"}` (newest first).'),
      limit: z.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 25).'),
      cursor: cursorField('`nextCursor` of the previous page.'),
    })
    .strict(),
);

/** Input of the built-in `count` function: a list filter, and the cursor of an incomplete count. */
export const countInputSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      filter: listFilterSchema().optional(),
      cursor: cursorField('`cursor` of an incomplete count.'),
    })
    .strict()
    .describe('`count`: items of the type, optionally matching a list filter.'),
);

/** Answer of `count`: a filtered count examines at most 10 000 items per call and then asks to continue. */
export const countAnswerSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      count: z.number().int().nonnegative(),
      complete: z.boolean().describe('`false`: call again with `cursor` to count on.'),
      cursor: z
        .string()
        .nullable()
        .describe('Pass it back to continue an incomplete count; null when complete.'),
    })
    .describe('`count` answer.'),
);

export type ListRequest = z.infer<ReturnType<typeof listRequestSchema>>;
export type ListFilterCondition = z.infer<ReturnType<typeof conditionSchema>>;
type FilterScalar = string | number | boolean | null;
/** A filter: conditions on fields, and the logical groups `_and`, `_or` and `_not`. */
export interface ListFilter {
  _and?: ListFilter[];
  _or?: ListFilter[];
  _not?: ListFilter;
  [field: string]: FilterScalar | ListFilterCondition | ListFilter | ListFilter[] | undefined;
}
