import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { type RunBody, runWorkflow, savedWorkflow } from './workflow-support';

/**
 * Markdown read aloud is bounded (docs/decisions/0019-markdown-work-bounds.md): the shapes the parser handles
 * in more than linear time are refused with 400 `validation_failed` before it runs, and the local stack reads
 * markdown in a worker thread, so other requests are answered meanwhile. Nothing here is timed.
 */

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** The reproductions of the report: each answered 500, or only after seconds to a minute, before. */
const REPRODUCTIONS: [string, string, 'refused' | 'read'][] = [
  ['*a** × 25,000', '*a**'.repeat(25_000), 'refused'],
  ['[ × 100,000', '['.repeat(100_000), 'refused'],
  ['- a × 25,000 lines', '- a\n'.repeat(25_000), 'refused'],
  [
    'a 900-row table',
    [
      '| Name | Value | Link |',
      '|---|---|---|',
      ...Array.from(
        { length: 900 },
        (_, i) => `| **row ${i}** | *${i}* | [r${i}](https://example.com/r/${i}) |`,
      ),
    ].join('\n'),
    'read',
  ],
];

/** An ordinary document of about 100,000 characters. */
const ordinaryDocument = repeatTo(
  '## A section\n\nThe *quick* brown fox jumps over the **lazy** dog; read [the guide](https://example.com/guide) ' +
    'before you start, and keep `npm test` green.\n\n- one point\n- another point\n\n',
  100_000,
);

const jobsPost = (apiKey: string, markdown: string) =>
  call('POST', '/v1/speech/jobs', { headers: { 'x-api-key': apiKey }, body: { markdown } });

/**
 * A document read, then refused by the tenant's speech quota or its queue cap of 0 (both checked after the
 * reading), so no job is synthesized.
 */
const expectReadThenRefused = (res: Awaited<ReturnType<typeof call>>) => {
  expect(res.status, JSON.stringify(res.json)).toBe(429);
  expect(['speech_quota_exceeded', 'speech_job_queue_full']).toContain(res.json.code);
};

describe('POST /v1/speech/jobs with markdown that is costly to parse', () => {
  it.each(REPRODUCTIONS)(
    'answers %s without a 500',
    { timeout: 60_000 },
    async (_case, markdown, expected) => {
      const tenant = await createTenant({ limits: { speechJobQueueCap: 0 } });
      const res = await jobsPost(tenant.apiKey, markdown);
      if (expected === 'refused') {
        expectProblem(res, 400, 'validation_failed');
        expect(res.json.detail).toContain('beyond what is read aloud');
        expect(res.json.errors).toEqual([{ pointer: '/body/markdown', message: expect.any(String) }]);
      } else {
        expectReadThenRefused(res);
      }
    },
  );

  it('answers a probe while an adversarial 100,000-character document is in flight', {
    timeout: 60_000,
  }, async () => {
    const tenant = await createTenant();
    const order: string[] = [];
    const adversarial = jobsPost(tenant.apiKey, '*a**'.repeat(25_000)).then((res) => {
      order.push('adversarial');
      return res;
    });
    const probe = call('GET', '/v1/public/plans').then((res) => {
      order.push('probe');
      return res;
    });
    const [refused, answered] = await Promise.all([adversarial, probe]);
    expect(answered.status).toBe(200);
    expectProblem(refused, 400, 'validation_failed');
    expect(order).toContain('probe');
  });

  it('answers a probe before an ordinary 100,000-character document is read', {
    timeout: 60_000,
  }, async () => {
    const tenant = await createTenant({ limits: { speechJobQueueCap: 0 } });
    const order: string[] = [];
    const long = jobsPost(tenant.apiKey, ordinaryDocument).then((res) => {
      order.push('document');
      return res;
    });
    // The probe leaves once the document's request is under way (its body sent and being authorized).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const probe = call('GET', '/v1/public/plans').then((res) => {
      order.push('probe');
      return res;
    });
    const [read, answered] = await Promise.all([long, probe]);
    expect(answered.status).toBe(200);
    expectReadThenRefused(read);
    expect(order).toEqual(['probe', 'document']);
  });
});

describe('POST /v1/spoken-text and the speech actions with markdown that is costly to parse', () => {
  const adversarial = '*a**'.repeat(2_000);

  it('refuses 8,000 characters of emphasis runs with 400 at /body/markdown', async () => {
    const tenant = await createTenant();
    const res = await call('POST', '/v1/spoken-text', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { markdown: adversarial },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([
      { pointer: '/body/markdown', message: expect.stringContaining('runs of emphasis') },
    ]);
  });

  it('fails the steps of actions/speech/spoken-text and actions/media/speech with validation_failed', {
    timeout: 60_000,
  }, async () => {
    const t = await createTenant({ plan: 'starter' });
    await savedWorkflow(t.companyId, {
      id: 'costly-markdown',
      name: 'Costly markdown',
      steps: [
        {
          id: 'spoken',
          action: 'actions/speech/spoken-text',
          with: { markdown: adversarial },
          allowFailure: true,
        },
        {
          id: 'job',
          action: 'actions/media/speech',
          with: { markdown: '['.repeat(8_000) },
          allowFailure: true,
        },
      ],
      return: {},
    });
    const run = await runWorkflow(t.apiKey, 'costly-markdown');
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const body = run.json as unknown as RunBody;
    expect(body.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
      ['spoken', 'validation_failed', true],
      ['job', 'validation_failed', true],
    ]);
    expect(body.failedSteps[0]?.userMessage).toContain('runs of emphasis');
    expect(body.failedSteps[1]?.userMessage).toContain('brackets');
  });
});
