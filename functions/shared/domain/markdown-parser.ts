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
