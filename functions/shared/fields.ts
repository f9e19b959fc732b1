import * as z from './zod';

/**
 * The field schemas many operations share, each rule stated once: an identifier (an item `_id`, a job, run,
 * workflow, endpoint or event id, a type or voice name) is 1 to 64 characters; a page cursor is opaque text of
 * 1 to 2,048; so is a URL the platform calls. Each use gives its own description.
 */
export const identifierField = (description: string) => z.string().min(1).max(64).describe(description);

export const cursorField = (description: string) =>
  z.string().min(1).max(2048).optional().describe(description);

/**
 * A URL the platform calls (a webhook endpoint, the message channel, a workflow's HTTP step): 1 to 2,048
 * characters. Where it may point (scheme, credentials, addresses) is each door's own check.
 */
export const urlField = (description: string) => z.string().min(1).max(2048).describe(description);

/** The longest timestamp: nanoseconds, `2026-11-29T10:00:00.123456789Z`, and some room. */
const MAX_TIMESTAMP_LENGTH = 35;

/**
 * A point in time, answered and accepted the one way: ISO 8601 in UTC with `Z` (`2026-11-29T10:00:00.000Z`,
 * fractional seconds optional), `format: date-time` in the OpenAPI document. Every timestamp of the API is this
 * schema (`test/unit/api-conventions-document.test.ts`).
 */
export const timestampField = () => z.iso.datetime().max(MAX_TIMESTAMP_LENGTH);
