import * as z from './zod';

/**
 * The field schemas many operations share, each rule stated once: an identifier (an item `_id`, a job, run,
 * workflow, endpoint or event id, a type or voice name) is 1 to 64 characters; a page cursor is opaque text of
 * 1 to 2,048. Each use gives its own description.
 */
export const identifierField = (description: string) => z.string().min(1).max(64).describe(description);

export const cursorField = (description: string) =>
  z.string().min(1).max(2048).optional().describe(description);
