import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problemSchema } from '../../functions/shared/http/openapi-problems';

/**
 * Every member an error sets on its problem (`new AppError(code, message, { extensions: { … } })`) is declared
 * in the problem schema, which refuses any other (`additionalProperties: false`): a member found only when a
 * contract test happens to provoke its code would otherwise break clients validating against the document.
 */
const root = join(import.meta.dirname, '..', '..', 'functions');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** The text of each `extensions: { … }` object, braces balanced. */
const extensionObjects = (text: string): string[] => {
  const found: string[] = [];
  for (let at = text.indexOf('extensions: {'); at !== -1; at = text.indexOf('extensions: {', at + 1)) {
    const start = text.indexOf('{', at);
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        found.push(text.slice(start, i + 1));
        break;
      }
    }
  }
  return found;
};

/** `text` with the object after each `name:` taken out (a member's own members are not the problem's). */
const withoutValueObjects = (text: string): string => {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const value = /^:\s*\{/.exec(text.slice(i));
    if (!value) {
      out += text[i];
      continue;
    }
    let depth = 0;
    let j = i + value[0].length - 1;
    for (; j < text.length; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}' && --depth === 0) break;
    }
    out += ': _';
    i = j;
  }
  return out;
};

/**
 * Member names of an object literal's text: `name: value` and shorthand `{ name }`, its own and those of the
 * objects it spreads conditionally (`...(c ? { name } : {})`), not those inside a member's value.
 */
const memberNames = (object: string): string[] => {
  const inner = withoutValueObjects(object.slice(1, -1));
  return [
    ...[...inner.matchAll(/([A-Za-z_]\w*)\s*:(?!:)/g)].map((m) => m[1] ?? ''),
    ...[...inner.matchAll(/(?:^|[{,])\s*([A-Za-z_]\w*)\s*(?=[,}]|$)/g)].map((m) => m[1] ?? ''),
  ];
};

/** The standard members: an extension of the same name would be overwritten by them. */
const STANDARD = ['type', 'title', 'status', 'code', 'detail', 'requestId'];

describe('problem extensions', () => {
  it('are all declared in the problem schema, none named as a standard member', () => {
    const declared = new Set(Object.keys(problemSchema.properties as Record<string, unknown>));
    const missing = sources(root).flatMap((file) =>
      extensionObjects(readFileSync(file, 'utf8'))
        .flatMap(memberNames)
        .filter((name) => !declared.has(name) || STANDARD.includes(name))
        .map((name) => `${file.slice(root.length + 1)}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('finds the members of the shapes the code writes', () => {
    expect(memberNames('{ meter, limit: 3, ...(n > 0 ? { requested: n } : {}) }').sort()).toEqual([
      'limit',
      'meter',
      'requested',
    ]);
    expect(memberNames('{ status }')).toEqual(['status']);
    expect(memberNames('{ declared: d, received: { size: 1, ...(c ? { sum: c } : {}) } }').sort()).toEqual([
      'declared',
      'received',
    ]);
    expect(extensionObjects('x({ extensions: { a: { b: 1 } }, y })')).toEqual(['{ a: { b: 1 } }']);
  });
});
