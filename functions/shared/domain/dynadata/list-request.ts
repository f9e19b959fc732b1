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
    })
    .strict()
    .describe('Operators on one field, ANDed.'),
);

export const listFilterSchema = /* @__PURE__ */ lazy(() =>
  z
    .record(z.string(), z.union([scalar(), conditionSchema()]))
    .describe('Conditions on top-level fields: a value (equality) or an operator object.'),
);

export const listRequestSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      filter: listFilterSchema().optional(),
      sort: z
        .object({
          field: z
            .string()
            .max(256)
            .default('_id')
            .describe('`_id` (creation order) or the type’s indexed field.'),
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
export type ListFilter = z.infer<ReturnType<typeof listFilterSchema>>;
export type ListFilterCondition = z.infer<ReturnType<typeof conditionSchema>>;
