import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Markdown (CommonMark + GFM) parsed by micromark into an mdast tree. This module and its parser (about
 * 110 KB minified) are loaded on first use as `#lazy/markdown-parser` (see `spoken-text.ts`): on Lambda it is
 * built beside the bundle, not into it.
 */
export const parseMarkdown = (markdown: string): Root =>
  fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/** The code point of a numeric reference, or U+FFFD where HTML would not decode one (NUL, surrogates, too big). */
const numericReference = (digits: string, radix: number) => {
  const code = Number.parseInt(digits, radix);
  return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
    ? '\ufffd'
    : String.fromCodePoint(code);
};

/**
 * Character references (`&amp;`, `&nbsp;`, `&#169;`, `&#x2014;`) of raw HTML decoded: mdast decodes them in
 * markdown text, but keeps the `html` nodes as written. The names are micromark's own table
 * (`decode-named-character-reference`), loaded here with the parser rather than in the speech bundle; an
 * unknown name stays as written.
 */
export const decodeCharacterReferences = (html: string): string =>
  html.replace(/&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([\da-zA-Z]{1,31}));/g, (match, dec, hex, name) => {
    if (dec !== undefined) return numericReference(dec, 10);
    if (hex !== undefined) return numericReference(hex, 16);
    return decodeNamedCharacterReference(name) || match;
  });
