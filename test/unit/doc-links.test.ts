import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Nodes, Root } from 'mdast';
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../functions/shared/domain/markdown-parser';

/**
 * The handbook (README.md), the SDK's README and docs/ link to each other by relative paths and `#anchors`;
 * every one must resolve to an existing file and, for an anchor, to a heading of that file (GitHub's heading
 * ids).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const README_MAX_LINES = 400;

const markdownFiles = (): string[] => {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path));
  return ['README.md', 'sdk/README.md', ...docs.sort()];
};

const children = (node: Nodes): Nodes[] => ('children' in node ? (node.children as Nodes[]) : []);

const walk = (node: Nodes, visit: (node: Nodes) => void): void => {
  visit(node);
  for (const child of children(node)) walk(child, visit);
};

/** The text of a node as GitHub reads a heading: inline code and emphasis keep their text. */
const textOf = (node: Nodes): string =>
  'value' in node && typeof node.value === 'string' ? node.value : children(node).map(textOf).join('');

/** GitHub's heading id: lower case, punctuation dropped, spaces to hyphens, repeats numbered `-1`, `-2`. */
const headingSlugs = (tree: Root): Set<string> => {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  walk(tree, (node) => {
    if (node.type !== 'heading') return;
    const base = textOf(node)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  });
  return slugs;
};

const linksOf = (tree: Root): string[] => {
  const urls: string[] = [];
  walk(tree, (node) => {
    if (node.type === 'link' || node.type === 'definition' || node.type === 'image') urls.push(node.url);
  });
  return urls;
};

const isExternal = (url: string) => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//');

const parsed = new Map<string, Root>();
const treeOf = (file: string): Root => {
  let tree = parsed.get(file);
  if (!tree) {
    tree = parseMarkdown(readFileSync(join(ROOT, file), 'utf8'));
    parsed.set(file, tree);
  }
  return tree;
};

/** What is wrong with one link of `file`, or undefined when it resolves. */
const linkProblem = (file: string, url: string): string | undefined => {
  if (isExternal(url)) return undefined;
  const hashAt = url.indexOf('#');
  const path = decodeURIComponent(hashAt === -1 ? url : url.slice(0, hashAt));
  const anchor = hashAt === -1 ? undefined : decodeURIComponent(url.slice(hashAt + 1));
  const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), path));
  if (target.startsWith('..')) return `${url}: points outside the repository`;
  if (!existsSync(join(ROOT, target))) return `${url}: ${target} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(join(ROOT, target)).isDirectory() || !target.endsWith('.md')) {
    return `${url}: an anchor into ${target}, which is not a markdown file`;
  }
  return headingSlugs(treeOf(target)).has(anchor) ? undefined : `${url}: ${target} has no heading #${anchor}`;
};

describe('documentation links', () => {
  const files = markdownFiles();

  it('finds the handbook and the docs pages', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/operate.md');
    expect(files).toContain('docs/security.md');
    expect(files).toContain('docs/decisions/README.md');
  });

  it.each(files)('resolves every relative link and anchor of %s', (file) => {
    const problems = linksOf(treeOf(file))
      .map((url) => linkProblem(file, url))
      .filter((problem) => problem !== undefined);
    expect(problems).toEqual([]);
  });

  it(`keeps README.md at most ${README_MAX_LINES} lines`, () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('the link check itself', () => {
  const tree = (markdown: string) => parseMarkdown(markdown);

  it('numbers repeated headings and drops punctuation as GitHub does', () => {
    const slugs = headingSlugs(tree('# MCP server (tools for agents)\n## A\n## A\n## 7-day `URLs` on AWS\n'));
    expect([...slugs]).toEqual(['mcp-server-tools-for-agents', 'a', 'a-1', '7-day-urls-on-aws']);
  });

  it('refuses a missing file, a missing heading and an anchor into a non-markdown file', () => {
    expect(linkProblem('README.md', 'docs/no-such-page.md')).toMatch(/does not exist/);
    expect(linkProblem('README.md', 'docs/operate.md#no-such-heading')).toMatch(/has no heading/);
    expect(linkProblem('README.md', '#no-such-heading')).toMatch(/has no heading/);
    expect(linkProblem('README.md', 'package.json#scripts')).toMatch(/not a markdown file/);
    expect(linkProblem('docs/operate.md', '../../outside.md')).toMatch(/outside the repository/);
  });

  it('accepts existing files, headings and external links', () => {
    expect(linkProblem('README.md', 'docs/operate.md#runbook')).toBeUndefined();
    expect(linkProblem('docs/security.md', '#threat-model')).toBeUndefined();
    expect(linkProblem('docs/decisions/README.md', '../../README.md#quick-start')).toBeUndefined();
    expect(linkProblem('README.md', 'https://example.com/missing.md#nowhere')).toBeUndefined();
  });
});
