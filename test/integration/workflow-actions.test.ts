import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { storeSource } from './transcode-support';
import { type RunBody, runWorkflow, savedWorkflow, startTarget, waitForRun } from './workflow-support';

let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target.close());

/** One definition naming every action of the registry, plus the refusals the actions owe. */
const everyAction = (url: string) => ({
  id: 'every',
  name: 'Every action',
  input: { type: 'object', properties: { fullPath: { type: 'string' } }, required: ['fullPath'] },
  steps: [
    { id: 'speech', action: 'actions/speech/synthesize', with: { text: 'Hello there.', format: 'ogg_opus' } },
    { id: 'call', action: 'actions/http/request', with: { method: 'GET', url: `${url}/json` } },
    // A token reaches only the caller of a sync run: an async run refuses to mint one.
    { id: 'token', action: 'actions/security/auth/jwt/generate', with: {}, allowFailure: true },
    { id: 'spoken', action: 'actions/speech/spoken-text', with: { markdown: '**Bold** move' } },
    { id: 'contact', action: 'actions/dynadata/create', with: { type: 'contacts', item: { name: 'Ada' } } },
    {
      id: 'rename',
      action: 'actions/dynadata/update',
      with: { type: 'contacts', item: { _id: '{{ steps.contact.output._id }}', name: 'Grace' } },
    },
    {
      id: 'read',
      action: 'actions/dynadata/get',
      with: { type: 'contacts', id: '{{ steps.contact.output._id }}' },
    },
    { id: 'list', action: 'actions/dynadata/list', with: { type: 'contacts', limit: 10 } },
    {
      id: 'message',
      action: 'actions/messages/send',
      with: {
        contactId: '{{ steps.contact.output._id }}',
        type: 'text',
        body: { text: '{{ steps.spoken.output.text }}' },
      },
    },
    {
      id: 'transcode',
      action: 'actions/media/transcode',
      with: { fullPath: '{{ input.fullPath }}', preset: 'wav' },
    },
    { id: 'transcribe', action: 'actions/media/transcribe', with: { fullPath: '{{ input.fullPath }}' } },
    { id: 'speechJob', action: 'actions/media/speech', with: { markdown: '# Hello\n\nRead as a job.' } },
    {
      id: 'remove',
      action: 'actions/dynadata/delete',
      with: { type: 'contacts', id: '{{ steps.contact.output._id }}' },
    },
    {
      id: 'audit',
      action: 'actions/dynadata/create',
      with: { type: 'log_entries', item: { note: 'x' } },
      allowFailure: true,
    },
    {
      id: 'private',
      action: 'actions/http/request',
      with: { method: 'GET', url: 'https://10.0.0.1/internal' },
      allowFailure: true,
    },
    {
      id: 'plain',
      action: 'actions/http/request',
      with: { method: 'GET', url: 'http://example.com/' },
      allowFailure: true,
    },
  ],
  return: {
    audio: '{{ steps.speech.output.fullPath }}',
    name: '{{ steps.read.output.name }}',
    listed: '{{ steps.list.output.items.0._id }}',
    message: '{{ steps.message.output.status }}',
    transcode: '{{ steps.transcode.output.job.id }}',
    transcription: '{{ steps.transcribe.output.job.id }}',
    speechJob: '{{ steps.speechJob.output.job.id }}',
    deleted: '{{ steps.remove.output.deleted }}',
    http: '{{ steps.call.output.body.method }}',
  },
});

const checkRun = async (apiKey: string, run: RunBody, _mode: 'sync' | 'async') => {
  expect(run, JSON.stringify(run.failedSteps)).toMatchObject({ status: 'success', ok: true, error: null });
  expect(run.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
    ['audit', 'log_entry_writes_not_allowed', true],
    ['private', 'http_target_refused', true],
    ['plain', 'http_target_refused', true],
  ]);
  expect(run.result).toMatchObject({ name: 'Grace', message: 'queued', deleted: true, http: 'GET' });
  expect(run.files).toEqual([{ bucket: expect.any(String), fullPath: run.result?.audio }]);
  const transcode = await call('GET', `/v1/transcodes/${run.result?.transcode}`, {
    headers: { 'x-api-key': apiKey },
  });
  expect(transcode.status).toBe(200);
  const transcription = await call('GET', `/v1/transcriptions/${run.result?.transcription}`, {
    headers: { 'x-api-key': apiKey },
  });
  expect(transcription.status).toBe(200);
  const speechJob = await call('GET', `/v1/speech/jobs/${run.result?.speechJob}`, {
    headers: { 'x-api-key': apiKey },
  });
  expect(speechJob.status).toBe(200);
};

describe('workflow actions', () => {
  it('runs a definition covering every action, sync and async, with the same outcome but the token', {
    timeout: 120_000,
  }, async () => {
    const t = await createTenant({ plan: 'starter' });
    const source = await storeSource(t.companyId, 'tone', { seconds: 1 });
    await savedWorkflow(t.companyId, everyAction(target.url));
    const sync = await runWorkflow(t.apiKey, 'every', { input: source });
    expect(sync.status, JSON.stringify(sync.json)).toBe(200);
    await checkRun(t.apiKey, sync.json as unknown as RunBody, 'sync');
    const accepted = await runWorkflow(t.apiKey, 'every', { mode: 'async', input: source });
    expect(accepted.status).toBe(202);
    await checkRun(
      t.apiKey,
      await waitForRun(t.apiKey, 'every', String(accepted.json.runId), 60_000),
      'async',
    );
  });
});

describe('speech actions refuse what the routes refuse', () => {
  it('fails the step with validation_failed for silent text and markdown nested past the limit', {
    timeout: 60_000,
  }, async () => {
    const t = await createTenant({ plan: 'starter' });
    await savedWorkflow(t.companyId, {
      id: 'refusals',
      name: 'Speech refusals',
      steps: [
        { id: 'blank', action: 'actions/speech/synthesize', with: { text: '\u200b' }, allowFailure: true },
        { id: 'spaces', action: 'actions/speech/synthesize', with: { text: ' \n\t' }, allowFailure: true },
        {
          id: 'deep',
          action: 'actions/speech/spoken-text',
          with: { markdown: `${'>'.repeat(2000)} x` },
          allowFailure: true,
        },
      ],
      return: {},
    });
    const run = await runWorkflow(t.apiKey, 'refusals');
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const body = run.json as unknown as RunBody;
    expect(body.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
      ['blank', 'validation_failed', true],
      ['spaces', 'validation_failed', true],
      ['deep', 'validation_failed', true],
    ]);
    expect(body.failedSteps[0]?.userMessage).toContain('nothing to speak');
    expect(body.failedSteps[2]?.userMessage).toContain('at most 50 deep');
    expect(body.files).toEqual([]);
  });
});

describe('HTTP step headers are data', () => {
  it('refuses on save a header with CR, LF or NUL, an invalid or templated name, or a platform header', async () => {
    const t = await createTenant();
    const res = await call('PUT', '/v1/workflows/bad-headers', {
      headers: { 'x-api-key': t.apiKey },
      body: {
        name: 'Bad headers',
        steps: [
          {
            id: 'call',
            action: 'actions/http/request',
            with: {
              method: 'GET',
              url: `${target.url}/json`,
              headers: {
                'x-crlf': 'a\r\nInjected: yes',
                'x-nul': 'a\u0000b',
                'bad header(': 'v',
                '{{ input.name }}': 'v',
                'X-Workflow-HOP': '0',
              },
            },
          },
        ],
      },
    });
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual([
      '/body/steps/0/with/headers/x-crlf',
      '/body/steps/0/with/headers/x-nul',
      '/body/steps/0/with/headers/bad header(',
      '/body/steps/0/with/headers/{{ input.name }}',
      '/body/steps/0/with/headers/X-Workflow-HOP',
    ]);
    expectProblem(
      await call('GET', '/v1/workflows/bad-headers', { headers: { 'x-api-key': t.apiKey } }),
      404,
      'not_found',
    );
  });

  it('fails a step with invalid_header, never internal, when a reference makes a header bad', async () => {
    const t = await createTenant();
    const saved = await call('PUT', '/v1/workflows/late-headers', {
      headers: { 'x-api-key': t.apiKey },
      body: {
        name: 'Late headers',
        steps: [
          {
            id: 'value',
            action: 'actions/http/request',
            with: { method: 'GET', url: `${target.url}/json`, headers: { 'x-v': '{{ input.v }}' } },
            allowFailure: true,
          },
          {
            id: 'name',
            action: 'actions/http/request',
            with: { method: 'GET', url: `${target.url}/json`, headers: '{{ input.h }}' },
            allowFailure: true,
          },
          {
            id: 'fine',
            action: 'actions/http/request',
            with: { method: 'GET', url: `${target.url}/json`, headers: { 'x-v': 'plain {{ run.id }}' } },
          },
        ],
        return: { status: '{{ steps.fine.output.status }}' },
      },
    });
    expect(saved.status, JSON.stringify(saved.json)).toBe(201);
    const run = await runWorkflow(t.apiKey, 'late-headers', {
      input: { v: 'a\r\nInjected: yes', h: { 'bad header(': 'v' } },
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const body = run.json as unknown as RunBody;
    expect(body.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
      ['value', 'invalid_header', true],
      ['name', 'invalid_header', true],
    ]);
    expect(body.failedSteps[0]?.userMessage).toContain('"x-v"');
    expect(body.failedSteps[0]?.userMessage).not.toContain('Injected');
    expect(body.failedSteps[1]?.userMessage).toContain('"bad header("');
    expect(body).toMatchObject({ ok: true, status: 'success', result: { status: 200 } });
  });
});
