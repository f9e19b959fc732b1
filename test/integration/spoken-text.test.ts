import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

describe('POST /v1/spoken-text', () => {
  it('rewrites markdown into its spoken form with its token count and speech-ready parts', async () => {
    const tenant = await createTenant();
    const markdown = [
      '# Release notes',
      '- **Faster** uploads & 20% less memory',
      '- See [the guide](https://example.com/guide) 🎉',
      '```ts\nconst x = 1;\n```',
      '| Plan | Price |\n|---|---|\n| Pro | $20 |',
    ].join('\n\n');
    const res = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { markdown },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      text:
        'Release notes. First, Faster uploads and 20 percent less memory. Second, See the guide. ' +
        'A ts code block is skipped. Row 1: Plan: Pro; Price: 20 dollars.',
      tokens: expect.any(Number),
      truncated: false,
      parts: [expect.any(String)],
    });
    expect(res.json.tokens).toBeGreaterThan(20);
    expect(res.json.tokens).toBeLessThan(60);
  });

  it('cuts at 1200 tokens and splits the text into parts of at most 4096 characters', async () => {
    const tenant = await createTenant();
    const markdown = Array.from({ length: 200 }, (_, i) => `Paragraph ${i + 1} says something short.`).join(
      '\n\n',
    );
    expect(markdown.length).toBeLessThanOrEqual(8000);
    const res = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { markdown },
    });
    expect(res.status).toBe(200);
    const { text, tokens, truncated, parts } = res.json as {
      text: string;
      tokens: number;
      truncated: boolean;
      parts: string[];
    };
    expect(truncated).toBe(true);
    expect(tokens).toBeLessThanOrEqual(1200);
    expect(tokens).toBeGreaterThan(1150);
    expect(text.endsWith('says something short.')).toBe(true);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(4096);
    expect(parts.join(' ')).toBe(text);
  });

  it.each([
    ['2,000 nested block quotes', `${'>'.repeat(2000)} x`],
    ['2,000 nested lists', `${'- '.repeat(2000)}x`],
    ['51 nested block quotes', `${'>'.repeat(51)} x`],
  ])('refuses %s with 400 naming the nesting limit at /body/markdown', async (_case, markdown) => {
    const tenant = await createTenant();
    const res = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { markdown },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.detail).toContain('at most 50 deep');
    expect(res.json.errors).toEqual([{ pointer: '/body/markdown', message: expect.any(String) }]);
  });

  it('reads block quotes nested up to the limit, and refuses a member it does not declare', async () => {
    const tenant = await createTenant();
    const headers = { 'x-api-key': tenant.apiKey };
    const deep = await call('POST', '/v1/spoken-text', {
      headers,
      body: { markdown: `${'>'.repeat(50)} x` },
    });
    expect(deep.status).toBe(200);
    expect(String(deep.json.text).endsWith('End of quote.')).toBe(true);
    const unknown = await call('POST', '/v1/spoken-text', {
      headers,
      body: { markdown: '# Hi', voice: 'x' },
    });
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.json.errors).toEqual([{ pointer: '/body/voice', message: expect.any(String) }]);
  });

  it('refuses markdown over 8000 characters and a key without the speech scope', async () => {
    const tenant = await createTenant();
    const long = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { markdown: 'a'.repeat(8001) },
    });
    expect(long.status).toBe(400);
    const limited = await createTenant({ scopes: ['usage:read'] });
    const denied = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': limited.apiKey },
      body: { markdown: '# Hi' },
    });
    expect(denied.status).toBe(403);
  });
});
