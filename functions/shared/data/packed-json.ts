import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as zm from '../zod-mini';

/**
 * JSON kept small in an item: DynamoDB bills a write per started KB of the item (twice in a transaction), so
 * a large JSON attribute (an event's `data`, a run's logs, a transcript) is stored as a binary attribute
 * holding its compressed text once its text reaches PACK_THRESHOLD_BYTES and the compressed form is smaller.
 * Below that, and for every item written before, the attribute keeps its plain form (JSON text, or the
 * list or map it always was), so readers accept both: `readJsonText`, `readPacked`.
 *
 * The binary form is one format byte (PACKED_BROTLI) and the brotli stream of the UTF-8 JSON text. Brotli at
 * quality 6 in text mode: within a few percent of its best ratio on such texts, about 0.05 ms a KB to
 * compress and 0.02 ms to read back (docs/decisions/0053-packed-json-attributes.md has the figures).
 */

/** Texts shorter than this are stored as they are: what compression would save is never a billed KB. */
export const PACK_THRESHOLD_BYTES = 256;

/** The format byte of a packed attribute: brotli of the JSON text. */
const PACKED_BROTLI = 1;

const options = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 6,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
});

/** The packed form of a JSON text, or undefined when the text is short or does not get smaller. */
export const packText = (text: string): Uint8Array | undefined => {
  const plain = Buffer.from(text, 'utf8');
  if (plain.length < PACK_THRESHOLD_BYTES) return undefined;
  const compressed = brotliCompressSync(plain, options(plain.length));
  if (compressed.length + 1 >= plain.length) return undefined;
  const packed = new Uint8Array(compressed.length + 1);
  packed[0] = PACKED_BROTLI;
  packed.set(compressed, 1);
  return packed;
};

/** The JSON text of a packed attribute (throws on a format it does not know). */
export const unpackText = (packed: Uint8Array): string => {
  if (packed[0] !== PACKED_BROTLI) throw new Error(`packed JSON of an unknown format ${packed[0]}`);
  return brotliDecompressSync(packed.subarray(1)).toString('utf8');
};

/** A value stored as JSON text: the text, or its packed form when that pays. */
export const packJsonText = (value: unknown): string | Uint8Array => {
  const text = JSON.stringify(value);
  return packText(text) ?? text;
};

/** A value stored as itself (a list, a map): the value, or its packed JSON text when that pays. */
export const packJsonValue = <T>(value: T): T | Uint8Array => packText(JSON.stringify(value)) ?? value;

/** The value of an attribute written by `packJsonText` (or JSON text written before packing). */
export const readJsonText = (stored: string | Uint8Array): unknown =>
  JSON.parse(typeof stored === 'string' ? stored : unpackText(stored));

/** The value of an attribute written by `packJsonValue` (or the plain value written before packing). */
export const readPacked = <T>(stored: T | Uint8Array): T =>
  stored instanceof Uint8Array ? (JSON.parse(unpackText(stored)) as T) : stored;

/** A packed attribute in an entity schema (a binary attribute reads back as a `Uint8Array`). */
export const packedBytes = () => zm.custom<Uint8Array>((value) => value instanceof Uint8Array);
