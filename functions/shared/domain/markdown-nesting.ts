import type { Nodes, Root } from 'mdast';
import { AppError } from '../errors';
import { MARKDOWN_MAX_NESTING } from './speech-request';

/**
 * The nesting bound of markdown read aloud (`MARKDOWN_MAX_NESTING`): block quotes, lists, footnotes and
 * inline marks nest what they hold one level deeper, and the rewrite reads the tree recursively, so deeper
 * markdown is refused with 400 `validation_failed` at `/body/markdown` instead of overflowing the stack.
 */
/** Container markers a line opens before its text: `>` and list bullets or numbers. */
const LINE_OPENER = /[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/y;
const openedOnLine = (line: string) => {
  let opened = 0;
  LINE_OPENER.lastIndex = 0;
  while (LINE_OPENER.test(line)) opened++;
  return opened;
};

/** Nodes that nest what they hold one level deeper, for `MARKDOWN_MAX_NESTING`. */
const NESTING = new Set(['blockquote', 'list', 'footnoteDefinition', 'emphasis', 'strong', 'delete', 'link']);

/** The deepest nesting of the tree, walked without recursion. */
const nestingOf = (root: Root): number => {
  let deepest = 0;
  const stack: [Nodes, number][] = [[root, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, above] = next;
    const depth = above + (NESTING.has(node.type) ? 1 : 0);
    deepest = Math.max(deepest, depth);
    if ('children' in node) for (const child of node.children) stack.push([child as Nodes, depth]);
  }
  return deepest;
};

const tooDeep = (pointer: string) =>
  new AppError(
    'validation_failed',
    `Block quotes, lists, footnotes and inline marks can be nested at most ${MARKDOWN_MAX_NESTING} deep; ` +
      'this markdown nests them deeper.',
    { errors: [{ pointer, message: `is nested deeper than ${MARKDOWN_MAX_NESTING} levels` }] },
  );

/**
 * The markdown as a tree, refused when nested deeper than `MARKDOWN_MAX_NESTING`: a line opening that many
 * containers is refused before parsing (the parser recurses too, and overflows near 4,000 levels); what
 * indentation nests across lines is measured on the tree, before the rewrite recurses into it.
 */
export const parseWithinNesting = (
  markdown: string,
  parse: (markdown: string) => Root,
  pointer = '/body/markdown',
): Root => {
  if (markdown.split('\n').some((line) => openedOnLine(line) > MARKDOWN_MAX_NESTING)) throw tooDeep(pointer);
  const tree = parse(markdown);
  if (nestingOf(tree) > MARKDOWN_MAX_NESTING) throw tooDeep(pointer);
  return tree;
};
