import { describe, expect, it } from 'vitest';
import { mergeSorted, type SortedSource } from '../../functions/shared/data/merge-sorted';

/** A source over sorted keys, counting its reads and the items they return. */
const source = (keys: string[], forward: boolean, bound?: string) => {
  const sorted = [...keys].sort();
  if (!forward) sorted.reverse();
  const stats = { reads: 0, items: 0 };
  const s: SortedSource<string> = {
    ...(bound === undefined ? {} : { bound }),
    read: async (after, limit) => {
      stats.reads++;
      const rest = sorted.filter((k) => after === undefined || (forward ? k > after : k < after));
      const items = rest.slice(0, limit);
      stats.items += items.length;
      return {
        items,
        ...(rest.length > limit ? { last: items[items.length - 1] } : {}),
        examined: items.length,
      };
    },
  };
  return { s, stats };
};

const pageAll = async (groups: string[][], forward: boolean, want: number) => {
  const pages: string[][] = [];
  let after: string | undefined;
  for (let n = 0; n < 100; n++) {
    const sources = groups.map((keys) => {
      const { s } = source(keys, forward);
      return {
        read: (from: string | undefined, limit: number) => s.read(from ?? after, limit),
      } as SortedSource<string>;
    });
    const page = await mergeSorted({ sources, key: (k) => k, forward, want, readLimit: 2 });
    pages.push(page.items);
    if (page.resumeAfter === undefined) break;
    after = page.resumeAfter;
  }
  return pages;
};

describe('mergeSorted', () => {
  const groups = [['a1', 'a5', 'a9', 'b2'], ['a2', 'a3', 'b7'], [], ['a4', 'a6', 'a7', 'a8', 'b1', 'b3']];
  const all = groups.flat().sort();

  it('pages every item exactly once, in order, both ways, the last page without a resume point', async () => {
    for (const want of [1, 2, 3, 5, 13, 14, 50]) {
      const up = await pageAll(groups, true, want);
      expect(up.flat()).toEqual(all);
      expect(up.every((p, i) => p.length === want || i === up.length - 1)).toBe(true);
      const down = await pageAll(groups, false, want);
      expect(down.flat()).toEqual([...all].reverse());
    }
  });

  it('reads a bounded source only when its keys can come first', async () => {
    const today = source(['d2#1', 'd2#2', 'd2#3'], false, 'd2#\uffff');
    const older = source(['d1#1', 'd1#2'], false, 'd1#\uffff');
    const page = await mergeSorted({
      sources: [today.s, older.s],
      key: (k) => k,
      forward: false,
      want: 2,
      readLimit: 3,
    });
    expect(page).toEqual({ items: ['d2#3', 'd2#2'], resumeAfter: 'd2#2' });
    expect(older.stats.reads).toBe(0);
  });

  it('stops at the examined budget and resumes after what every source has read', async () => {
    const sources = [source(['a', 'b', 'c'], true).s, source(['d', 'e'], true).s];
    const filtered = sources.map((s) => ({
      read: async (after: string | undefined, limit: number) => ({
        ...(await s.read(after, limit)),
        items: [] as string[],
      }),
    }));
    const page = await mergeSorted({
      sources: filtered,
      key: (k) => k,
      forward: true,
      want: 5,
      readLimit: 1,
      maxExamined: 2,
    });
    expect(page.items).toEqual([]);
    expect(page.resumeAfter).toBe('d');
  });
});
