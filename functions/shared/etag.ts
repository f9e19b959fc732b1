import { createHash } from 'node:crypto';
import { canonical } from './canonical-json';

/**
 * Entity tags of single resources (RFC 9110 §8.8.3): a strong tag from a hash of the resource exactly as its
 * GET route answers it (keys sorted), so a tag changes whenever anything a client can see changes, and the
 * domain can compute the same tag of the stored resource to honour `If-Match` on a write.
 */
export const etagOf = (resource: unknown): string =>
  `"${createHash('sha256')
    .update(JSON.stringify(canonical(resource)))
    .digest('base64url')
    .slice(0, 27)}"`;

const tagsOf = (header: string): string[] =>
  header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

/** `If-None-Match`: weak comparison (a `W/` prefix is ignored); `*` matches any current resource. */
export const noneMatchHits = (header: string | undefined, etag: string): boolean =>
  header !== undefined && tagsOf(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);

/** `If-Match`: strong comparison (a weak tag never matches); `*` matches any current resource. */
export const ifMatchHolds = (header: string | undefined, etag: string): boolean =>
  header === undefined || tagsOf(header).some((tag) => tag === '*' || tag === etag);
