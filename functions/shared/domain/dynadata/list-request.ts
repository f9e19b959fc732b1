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

/** Keys of a filter object that group other filters rather than name a field (`_` never starts a field name). */
export const LOGICAL_KEYS = ['_and', '_or', '_not'] as const;

const filterAtLevel = (level: number): z.ZodType => {
  const fieldCondition = z.union([scalar(), conditionSchema()]);
  const object =
    level >= MAX_FILTER_DEPTH
      ? z.object({})
      : z.object({
          _and: z
            .array(filterAtLevel(level + 1))
            .min(1)
            .max(MAX_GROUP_MEMBERS)
            .optional()
            .describe('Every filter of the list holds.'),
          _or: z
            .array(filterAtLevel(level + 1))
            .min(1)
            .max(MAX_GROUP_MEMBERS)
            .optional()
            .describe('At least one filter of the list holds.'),
          _not: filterAtLevel(level + 1)
            .optional()
            .describe('The filter does not hold.'),
        });
  return object
    .catchall(fieldCondition)
    .describe(
      level >= MAX_FILTER_DEPTH
        ? `Conditions on fields, ANDed (level ${MAX_FILTER_DEPTH}: no further \`_and\`, \`_or\`, \`_not\`).`
        : 'Conditions on top-level fields (a value: equality; or an operator object), ANDed with `_and`, ' +
            '`_or` and `_not` groups.',
    );
};

export const listFilterSchema = /* @__PURE__ */ lazy(() => filterAtLevel(1) as z.ZodType<ListFilter>);

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
      cursor: z.string().max(2048).optional().describe('`nextCursor` of the previous page.'),
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
