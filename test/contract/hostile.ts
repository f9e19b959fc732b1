/**
 * Values that have broken JSON APIs before, grouped in families the fuzz engine (`./fuzz.ts`) puts at every
 * position of a request where they fit. Each family names the bug class it hunts:
 *
 * - member names every JavaScript object already has: assignment to `__proto__` changes a prototype instead
 *   of storing a member, a lookup of `constructor` in a plain object finds a function;
 * - nesting deeper than any parser or renderer should recurse: JSON containers and Markdown blocks;
 * - strings that are blank without being empty: a `trim()` in one place and not another turns them into
 *   empty strings a downstream service refuses;
 * - characters outside the Basic Multilingual Plane around a length limit: JavaScript counts UTF-16 code
 *   units, JSON Schema and most services count code points, so a string can be both within and over a limit;
 * - URLs that a lenient parser normalises into another target than the one written.
 *
 * Everything here is data: no generator, so the engine keeps every draw inside fast-check and its seed.
 */

/** Member names that `Object.prototype` already has, `__proto__` first (the one assignment cannot store). */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
] as const;

/** Values put under a prototype name: an object is what pollutes a prototype, the rest what breaks a lookup. */
export const PROTOTYPE_VALUES: readonly unknown[] = [{ polluted: true }, {}, [], 'x', 1, null, true];

/** Strings that are not empty and show nothing: spaces, control white space, no-break and zero-width. */
export const BLANK_STRINGS = [
  ' ',
  '   ',
  '\n\t',
  '\r\n',
  '\u00a0',
  '\u200b',
  '\ufeff',
  '\u2028',
  '\u3000',
  ' \u200b\ufeff\u00a0\n\t ',
] as const;

/** Depths of nested JSON containers: just past the API's 32 levels, round figures, and the far end. */
export const NESTING_DEPTHS = [33, 34, 64, 100, 256, 1000, 2000] as const;
export const MAX_NESTING_DEPTH = 2000;

/**
 * A JSON value `depth` containers deep, `0` innermost: arrays (`[[0]]`), objects (`{"a":{"a":0}}`) or both
 * in turn.
 * Built as text, so no recursion is needed to make or serialise it.
 */
export const nestedJsonText = (depth: number, container: 'array' | 'object' | 'mixed'): string => {
  const open = (level: number) =>
    container === 'array' || (container === 'mixed' && level % 2 === 1) ? '[' : '{"a":';
  const close = (level: number) =>
    container === 'array' || (container === 'mixed' && level % 2 === 1) ? ']' : '}';
  const levels = Array.from({ length: depth }, (_, level) => level);
  return `${levels.map(open).join('')}0${levels.reverse().map(close).join('')}`;
};

/**
 * Markdown nested as deep as the field's `maxLength` allows (and, for block quotes, once past it): block
 * quotes (`> ` 2,000 times), bullet and ordered lists indented one more level per line, quotes of lists,
 * and inline openers (emphasis, links, code spans) that a recursive renderer may follow to the end.
 */
export const markdownNestings = (maxLength: number | undefined): string[] => {
  const limit = maxLength ?? 8000;
  const indented = (marker: string, indent: number) => {
    const lines: string[] = [];
    for (let level = 0, length = 0; ; level++) {
      const line = `${' '.repeat(level * indent)}${marker} level ${level}`;
      length += line.length + 1;
      if (length > limit) return lines.join('\n');
      lines.push(line);
    }
  };
  const half = Math.floor(limit / 2);
  return [
    `${'> '.repeat(2000)}deep`,
    '> '.repeat(half + 1),
    indented('-', 2),
    indented('1.', 3),
    `${'> - '.repeat(Math.floor((limit - 1) / 4))}x`,
    `${'*'.repeat(half)}x${'*'.repeat(Math.max(half - 1, 0))}`,
    `${'['.repeat(Math.max(limit - 5, 0))}](x)`,
    `${'`'.repeat(Math.max(limit - 1, 0))}x`,
  ];
};

/** A string of `count` copies of an astral character (two UTF-16 code units each). */
const astral = (count: number, char = '\u{1F600}') => char.repeat(Math.max(count, 0));

/**
 * Strings of astral characters around a length limit `max`, counted both ways: `max` code units (half as many
 * code points), `max` code points (twice as many code units), one character over in code units only, a
 * surrogate pair straddling the limit, a lone surrogate at the limit (not a character at all), and one over
 * by both counts, the only one a limit must refuse (`overLimit`). Without a limit: one character, a family
 * emoji (seven code points drawn as one), a long run, and a lone surrogate.
 */
export const astralStrings = (max: number | undefined): { value: string; overLimit: boolean }[] => {
  const within = (value: string) => ({ value, overLimit: false });
  if (max === undefined)
    return [
      within(astral(1)),
      within('\u{1F468}\u200d\u{1F469}\u200d\u{1F467}'),
      within(astral(1000, '\u{1D54F}')),
      within('\ud83d'),
    ];
  return [
    within(astral(Math.floor(max / 2))),
    within(astral(max)),
    within(astral(Math.floor(max / 2) + 1)),
    within(`${'a'.repeat(Math.max(max - 1, 0))}\u{1F600}`),
    within(`${'a'.repeat(Math.max(max - 1, 0))}\ud83d`),
    { value: astral(max + 1), overLimit: true },
  ];
};

/**
 * URLs no outbound rule should take as written: control characters and white space inside or around, an
 * empty host, port 0, userinfo, a fragment, a backslash (which WHATWG parsers read as a slash).
 */
export const HOSTILE_URLS = [
  'https://example.com/\r\nx',
  'https://example.com/a\tb',
  'https://exa\tmple.com/',
  'https://example.com/\n',
  ' https://example.com/',
  'https://example.com/ ',
  '\thttps://example.com/',
  'https:///x',
  'https://example.com:0/',
  'https://user:secret@example.com/',
  'https://user@example.com/',
  'https://example.com/#fragment',
  'https://example.com/path#',
  'https://example.com\\@attacker.test/',
  'https://example.com/\u0000',
] as const;

/** Names of string members that hold Markdown or a URL. */
export const isMarkdownName = (name: string | undefined) => name !== undefined && /markdown/i.test(name);
export const isUrlName = (name: string | undefined) =>
  name !== undefined && /(^|[a-z_])(url|uri)$/i.test(name);

/**
 * A header value as a client sends it on the wire: header values are bytes, so a string with characters
 * beyond Latin-1 goes as its UTF-8 bytes (`fetch` would refuse the string itself; a lone surrogate becomes
 * U+FFFD), line breaks and NUL, which no header may hold, become spaces, and white space around a value,
 * which `fetch` trims, is kept inside visible characters.
 */
export const headerValueOf = (value: string): string => {
  const bytes = Buffer.from(value, 'utf8').toString('latin1');
  const trimmed = bytes.replace(/[\r\n\0]/g, ' ');
  return trimmed.trim() === trimmed ? trimmed : `x${trimmed}x`;
};
