import * as z from '../../zod';

/**
 * What a list (and a filtered count) asks for: filter, sort, page size and cursor. The domain owns the shape;
 * the list route validates its body with it and publishes it in the OpenAPI document.
 */
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const conditionSchema = z
  .object({
    eq: scalar.optional(),
    ne: scalar.optional(),
    gt: z.union([z.string(), z.number()]).optional(),
    gte: z.union([z.string(), z.number()]).optional(),
    lt: z.union([z.string(), z.number()]).optional(),
    lte: z.union([z.string(), z.number()]).optional(),
    in: z.array(scalar).min(1).max(100).optional(),
    exists: z.boolean().optional(),
    prefix: z.string().min(1).optional(),
  })
  .strict()
  .describe('Operators on one field, ANDed.');

export const listFilterSchema = z
  .record(z.string(), z.union([scalar, conditionSchema]))
  .describe('Conditions on top-level fields: a value (equality) or an operator object.');

export const listRequestSchema = z
  .object({
    filter: listFilterSchema.optional(),
    sort: z
      .object({
        field: z.string().default('_id').describe('`_id` (creation order) or the type’s indexed field.'),
        order: z.enum(['asc', 'desc']).default('desc'),
      })
      .strict()
      .optional()
      .describe('Default: `{field: "_id", order: "desc"}` (newest first).'),
    limit: z.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 25).'),
    cursor: z.string().max(2048).optional().describe('`nextCursor` of the previous page.'),
  })
  .strict();

export type ListRequest = z.infer<typeof listRequestSchema>;
export type ListFilter = z.infer<typeof listFilterSchema>;
export type ListFilterCondition = z.infer<typeof conditionSchema>;
