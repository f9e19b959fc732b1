import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { RawResult } from './router';

/**
 * Content codings of large public answers (the OpenAPI document, the documentation page's assets), applied by
 * the handler rather than by API Gateway (`docs/decisions/0045-contract-conventions.md`): each coding is made
 * once per instance and kept, it is the same on AWS and on the local stack, and each encoded representation
 * has its own strong `ETag`, which a gateway that compresses after the handler could not give.
 */
export type ContentCoding = 'br' | 'gzip';

/**
 * The coding of `offered` the client prefers by `Accept-Encoding` (RFC 9110 §12.5.3): the highest `q` above 0,
 * `*` standing for codings it does not name; on a tie, the first offered. None (identity) when it accepts none.
 */
export const preferredCoding = (
  acceptEncoding: string | undefined,
  offered: readonly ContentCoding[],
): ContentCoding | undefined => {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (coding) weights.set(coding.trim().toLowerCase(), q === undefined ? 1 : Number(q));
  }
  let best: ContentCoding | undefined;
  let bestWeight = 0;
  for (const coding of offered) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
};

/**
 * Brotli quality 7: the 1.1 MB document in about 60 ms to 48 KB (quality 11 gains 4 KB for 2 s); gzip level 9:
 * about 50 ms to 80 KB. Each runs once per instance and coding.
 */
const ENCODERS: Record<ContentCoding, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body, { level: 9 }),
  br: (body) =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 7,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
};

/**
 * A body served in the coding the client prefers, with a strong `ETag` from its content: one tag per
 * representation (`"<hash>"`, `"<hash>-gzip"`, `"<hash>-br"`), as RFC 9110 asks of codings of the same content.
 * The router answers 304 to `If-None-Match` with the tag (the route declares `etag`). Each coding is made on
 * its first request and kept.
 */
export const codedRepresentation = (body: string | Buffer, headers: Record<string, string>) => {
  const identity = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
  const coded = new Map<ContentCoding, Buffer>();
  return (
    acceptEncoding: string | undefined,
    offered: readonly ContentCoding[] = ['br', 'gzip'],
  ): RawResult => {
    const coding = preferredCoding(acceptEncoding, offered);
    if (coding && !coded.has(coding)) coded.set(coding, ENCODERS[coding](identity));
    return {
      // Text stays text (sent as it is); coded bytes travel base64-encoded.
      raw: coding ? (coded.get(coding) as Buffer) : body,
      headers: {
        ...headers,
        etag: `"${hash}${coding ? `-${coding}` : ''}"`,
        vary: 'accept-encoding',
        ...(coding ? { 'content-encoding': coding } : {}),
      },
    };
  };
};
