import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setCompanyLimitOverrides } from './storage-support';
import { call, createTenant, expectProblem } from './support';

type Speech = {
  bucket: string;
  fullPath: string;
  size: number;
  format: string;
  durationSeconds: number;
  characters: number;
  meter: string;
};

const speak = (apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/speech', { headers: { 'x-api-key': apiKey, ...headers }, body });

/** Downloads the object through a signed URL and decodes it with ffprobe: `[format name, duration]`. */
const probe = async (apiKey: string, fullPath: string) => {
  const url = await call('GET', `/v1/storage/url?fullPath=${encodeURIComponent(fullPath)}`, {
    headers: { 'x-api-key': apiKey },
  });
  expect(url.status).toBe(200);
  const file = await fetch(String(url.json.url));
  expect(file.status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'speech-test-'));
  try {
    const path = join(dir, 'audio');
    writeFileSync(path, Buffer.from(await file.arrayBuffer()));
    // Decoding the whole stream (not the header) gives the duration the file really plays for.
    const decoded = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'null', '-'], {
      encoding: 'utf8',
    });
    expect(decoded).toBe('');
    const out = execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'format=format_name,duration', '-of', 'json', path],
      { encoding: 'utf8' },
    );
    const format = (JSON.parse(out) as { format: { format_name: string; duration: string } }).format;
    return {
      contentType: file.headers.get('content-type'),
      name: format.format_name,
      duration: Number(format.duration),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const speechCharacters = async (apiKey: string) => {
  const usage = await call('GET', '/v1/usage', { headers: { 'x-api-key': apiKey } });
  return (usage.json.usage as { meters: Record<string, number> }).meters.speech_characters;
};

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank. ';

describe('POST /v1/speech (local engine: espeak-ng + ffmpeg)', () => {
  it.each([
    ['mp3', 'mp3', 'audio/mpeg'],
    ['ogg_opus', 'ogg', 'audio/ogg'],
    ['wav', 'wav', 'audio/wav'],
  ] as const)(
    'synthesizes %s into a stored object that decodes to a duration fitting the text',
    async (format, name, type) => {
      const tenant = await createTenant({ plan: 'starter' });
      const text = SENTENCE.repeat(3).trim();
      const res = await speak(tenant.apiKey, { text, format });
      expect(res.status).toBe(201);
      const body = res.json as Speech;
      expect(body).toMatchObject({ format, characters: text.length, meter: 'speech_characters' });
      expect(body.fullPath).toMatch(new RegExp(`^companies/${tenant.companyId}/speech/[a-z0-9]+\\.${name}$`));
      const file = await probe(tenant.apiKey, body.fullPath);
      expect(file.contentType).toBe(type);
      expect(file.name).toContain(name);
      // About 12-16 characters a second for espeak-ng's default rate.
      expect(file.duration).toBeGreaterThan(text.length / 25);
      expect(file.duration).toBeLessThan(text.length / 6);
      expect(Math.abs(file.duration - body.durationSeconds)).toBeLessThan(0.2);
      expect(await speechCharacters(tenant.apiKey)).toBe(text.length);
    },
  );

  it('splits text over 3000 characters, joins the parts into one file that plays to the end', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const short = SENTENCE.repeat(4).trim();
    const long = SENTENCE.repeat(60).trim().slice(0, 4096);
    expect(long.length).toBeGreaterThan(3000);
    const one = (await speak(tenant.apiKey, { text: short, format: 'wav' })).json as Speech;
    const res = await speak(tenant.apiKey, { text: long, format: 'mp3' });
    expect(res.status).toBe(201);
    const body = res.json as Speech;
    // Two parts: the characters of the parts (without the space joining them).
    expect(body.characters).toBe(long.length - 1);
    const file = await probe(tenant.apiKey, body.fullPath);
    const perChar = (await probe(tenant.apiKey, one.fullPath)).duration / short.length;
    expect(file.duration).toBeGreaterThan(perChar * long.length * 0.85);
    expect(file.duration).toBeLessThan(perChar * long.length * 1.15);
  });

  it('honours Idempotency-Key: a replay returns the same object and bills nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const headers = { 'idempotency-key': `speech-${Date.now()}` };
    const first = await speak(tenant.apiKey, { text: 'Hello there.' }, headers);
    expect(first.status).toBe(201);
    const replay = await speak(tenant.apiKey, { text: 'Hello there.' }, headers);
    expect(replay.status).toBe(201);
    expect(replay.json).toEqual(first.json);
    expect(await speechCharacters(tenant.apiKey)).toBe('Hello there.'.length);
  });

  it('refuses past the monthly speech characters with 429 and Retry-After, billing nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    await setCompanyLimitOverrides(tenant.companyId, { speechCharactersPerMonth: 20 });
    expect((await speak(tenant.apiKey, { text: 'Short one.' })).status).toBe(201);
    const refused = await speak(tenant.apiKey, { text: 'This one is too long for the allowance.' });
    expectProblem(refused, 429, 'speech_quota_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await speechCharacters(tenant.apiKey)).toBe(10);
  });

  it('refuses past the storage allowance, billing nothing and leaving no object', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    await setCompanyLimitOverrides(tenant.companyId, { storageBytes: 1000 });
    expectProblem(
      await speak(tenant.apiKey, { text: SENTENCE, format: 'wav' }),
      403,
      'storage_limit_reached',
    );
    expect(await speechCharacters(tenant.apiKey)).toBe(0);
    const usage = await call('GET', '/v1/usage', { headers: { 'x-api-key': tenant.apiKey } });
    expect(JSON.stringify(usage.json)).toMatch(/"storageBytes":0\b/);
  });

  it('refuses an unknown voice and text over 4096 characters with a pointer', async () => {
    const tenant = await createTenant();
    const unknown = await speak(tenant.apiKey, { text: 'Hi.', voiceProfileId: 'nobody' });
    expectProblem(unknown, 400, 'validation_failed');
    expect(JSON.stringify(unknown.json)).toContain('/v1/speech/voices');
    const long = await speak(tenant.apiKey, { text: 'a'.repeat(4097) });
    expect(long.status).toBe(400);
    expect(JSON.stringify(long.json)).toContain('/body/text');
  });

  it('counts characters as code points for the limit and the bill alike (astral characters at the boundary)', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    // 4096 characters, 4192 UTF-16 units: accepted, and billed as the limit counts them.
    const limit = `${'Hi there. '.repeat(400)}${'😀'.repeat(96)}`;
    expect([...limit].length).toBe(4096);
    const res = await speak(tenant.apiKey, { text: limit, format: 'mp3' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    // Two parts; the space between them is not sent, so not billed.
    expect(res.json.characters).toBe(4095);
    const over = await speak(tenant.apiKey, { text: `${limit}😀` });
    expectProblem(over, 400, 'validation_failed');
    expect(over.json.errors).toEqual([{ pointer: '/body/text', message: expect.any(String) }]);
    // 2,049 emoji are 2,049 characters: billed 2,049, not their 4,098 UTF-16 units.
    const emoji = await speak(tenant.apiKey, { text: '😀'.repeat(2049), format: 'wav' });
    expect(emoji.status, JSON.stringify(emoji.json)).toBe(201);
    expect(emoji.json.characters).toBe(2049);
    expect(await speechCharacters(tenant.apiKey)).toBe(4095 + 2049);
  });

  it.each([
    ['a space', ' '],
    ['a newline and a tab', '\n\t'],
    ['a no-break space', '\u00a0'],
    ['a zero-width space', '\u200b'],
  ])('refuses text of only %s with 400 at /body/text, billing nothing', async (_name, text) => {
    const tenant = await createTenant({ plan: 'starter' });
    const res = await speak(tenant.apiKey, { text });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([
      { pointer: '/body/text', message: expect.stringContaining('nothing to speak') },
    ]);
    expect(await speechCharacters(tenant.apiKey)).toBe(0);
  });

  it.each([
    ['only punctuation', '?!... —', 'nothing to speak'],
    ['a lone surrogate', '\ud800', 'lone UTF-16 surrogate'],
    ['a letter and a lone surrogate', 'Hi \udfff.', 'lone UTF-16 surrogate'],
  ])('refuses text of %s with 400 at /body/text, billing nothing', async (_name, text, message) => {
    const tenant = await createTenant({ plan: 'starter' });
    const res = await speak(tenant.apiKey, { text });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/body/text', message: expect.stringContaining(message) }]);
    expect(await speechCharacters(tenant.apiKey)).toBe(0);
  });

  it('refuses a member the body does not declare, as every route does', async () => {
    const tenant = await createTenant();
    const res = await speak(tenant.apiKey, { text: 'Hi.', speed: 1.5 });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/body/speed', message: expect.any(String) }]);
    expect(await speechCharacters(tenant.apiKey)).toBe(0);
  });

  it('lists the voices, and another tenant cannot download the audio', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const voices = await call('GET', '/v1/speech/voices', { headers: { 'x-api-key': tenant.apiKey } });
    expect(voices.status).toBe(200);
    const list = voices.json.voices as { id: string; default: boolean; meter: string }[];
    expect(list.filter((v) => v.default)).toHaveLength(1);
    const voice = list.find((v) => !v.default)?.id;
    const res = await speak(tenant.apiKey, { text: 'Hello.', voiceProfileId: voice });
    expect(res.status).toBe(201);
    const other = await createTenant();
    const url = await call(
      'GET',
      `/v1/storage/url?fullPath=${encodeURIComponent(String(res.json.fullPath))}`,
      {
        headers: { 'x-api-key': other.apiKey },
      },
    );
    expect(url.status).toBe(404);
  });
});
