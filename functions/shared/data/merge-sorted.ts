/**
 * A lazy k-way merge of sorted sources (each a DynamoDB partition read page by page), by a string key: only
 * the sources whose next key can still come first are read, each read asks for about the share of the page it
 * is likely to hold, so a page reads O(page + sources) items, not O(sources × page).
 *
 * A source that was never read carries `bound`: no key it holds comes before it in the merge order (for a
 * partition of one UTC day, the day's end when newest first, its start when oldest first). A source read in
 * part carries the key it stopped at; a source read to its end drops out.
 */
export interface SortedSource<T> {
  /** The first key this source can hold in merge order (undefined: anything). */
  bound?: string;
  /** Reads up to `limit` items after `after` (exclusive; undefined: from the start), in merge order. */
  read: (
    after: string | undefined,
    limit: number,
  ) => Promise<{ items: T[]; last?: string; examined: number }>;
}

export interface MergeOptions<T> {
  sources: SortedSource<T>[];
  key: (item: T) => string;
  /** Oldest first (ascending keys) or newest first. */
  forward: boolean;
  /** Items wanted. */
  want: number;
  /** Items a single read asks for. */
  readLimit: number;
  /** Stop reading once this many items were examined (a filtered page may then be short). */
  maxExamined?: number;
}

export interface MergeResult<T> {
  items: T[];
  /** Where the next page resumes (exclusive), or undefined when every source was read to its end. */
  resumeAfter?: string;
}

interface State<T> {
  source: SortedSource<T>;
  buffer: T[];
  /** The key the last read stopped at; undefined before the first read. */
  last?: string;
  started: boolean;
  done: boolean;
}

export const mergeSorted = async <T>(options: MergeOptions<T>): Promise<MergeResult<T>> => {
  const { key, forward, want } = options;
  const before = (a: string, b: string) => (forward ? a < b : a > b);
  const states: State<T>[] = options.sources.map((source) => ({
    source,
    buffer: [],
    started: false,
    done: false,
  }));
  const out: T[] = [];
  let examined = 0;
  const maxExamined = options.maxExamined ?? Number.POSITIVE_INFINITY;
  /** The first key a source can still yield (undefined: anything). */
  const boundOf = (s: State<T>): string | undefined => {
    const head = s.buffer[0];
    if (head !== undefined) return key(head);
    return s.started ? s.last : s.source.bound;
  };
  const read = async (s: State<T>) => {
    const page = await s.source.read(s.started ? s.last : undefined, options.readLimit);
    s.started = true;
    examined += page.examined;
    s.buffer.push(...page.items);
    s.last = page.last;
    if (page.last === undefined) s.done = true;
  };
  const live = () => states.filter((s) => s.buffer.length > 0 || !s.done);
  for (;;) {
    const open = live();
    if (open.length === 0) return { items: out };
    // The best head among the buffered sources; sources that could still beat it are read first.
    let best: string | undefined;
    for (const s of open) {
      const head = s.buffer[0];
      if (head !== undefined && (best === undefined || before(key(head), best))) best = key(head);
    }
    const toRead = open.filter((s) => {
      if (s.buffer.length > 0) return false;
      const bound = boundOf(s);
      return best === undefined || bound === undefined || !before(best, bound);
    });
    if (out.length >= want && best !== undefined) {
      return { items: out, resumeAfter: key(out[out.length - 1] as T) };
    }
    if (toRead.length > 0) {
      if (examined >= maxExamined) {
        // Out of budget: resume after the last item given, or after what every source has read.
        const last = out[out.length - 1];
        if (last !== undefined) return { items: out, resumeAfter: key(last) };
        let frontier: string | undefined;
        for (const s of open) {
          const bound = boundOf(s);
          if (bound !== undefined && (frontier === undefined || before(frontier, bound))) frontier = bound;
        }
        return { items: out, ...(frontier === undefined ? {} : { resumeAfter: frontier }) };
      }
      // When nothing is buffered, only the sources that can come first are read (and those of no bound).
      let first: string | undefined;
      for (const s of toRead) {
        const bound = boundOf(s);
        if (bound !== undefined && (first === undefined || before(bound, first))) first = bound;
      }
      const batch =
        best === undefined
          ? toRead.filter((s) => {
              const bound = boundOf(s);
              return bound === undefined || bound === first;
            })
          : toRead;
      await Promise.all(batch.map(read));
      continue;
    }
    const winner = open.find((s) => s.buffer[0] !== undefined && key(s.buffer[0]) === best) as State<T>;
    out.push(winner.buffer.shift() as T);
  }
};
