import { Worker } from 'node:worker_threads';

/**
 * `npm run bench -- markdown`: the cost of reading markdown aloud for the shapes a parser may handle in more
 * than linear time (docs/decisions/0019-markdown-work-bounds.md). Each family is written at 10k, 50k and 100k
 * characters and read by the two domain functions every door calls:
 *  - `spokenTextOf` (`POST /v1/speech/jobs` and the workflow action `actions/media/speech`), up to 100,000
 *    characters,
 *  - `spokenText` (`POST /v1/spoken-text` and `actions/speech/spoken-text`; those doors refuse more than 8,000
 *    characters at their schema, so this measures the rewrite and the token cut past what they let through).
 * Each case runs in a worker thread of its own (a fresh heap, cut off after CASE_TIMEOUT_MS). A refusal (400
 * `validation_failed`) is a result: its time is the time to refuse. Then one HTTP pass through the started
 * local stack: each family at 100k to `POST /v1/speech/jobs` while `GET /v1/public/plans` is probed, to show
 * whether the gateway answers others meanwhile. Figures only; nothing here is asserted by tests.
 */
const SIZES = [10_000, 50_000, 100_000] as const;
/** Long enough for the request to be authorized and its body parsed, so the probe meets the reading. */
const PROBE_DELAY_MS = 500;
const CASE_TIMEOUT_MS = Number(process.env.BENCH_MARKDOWN_TIMEOUT_MS ?? 30_000);

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Ordinary prose: headings, paragraphs, emphasis, links, a short list. */
const PROSE_UNIT =
  '## A section\n\nThe *quick* brown fox jumps over the **lazy** dog; read [the guide](https://example.com/guide) ' +
  'before you start, and keep `npm test` green.\n\n- one point\n- another point\n\n';

export const MARKDOWN_FAMILIES: Record<string, (size: number) => string> = {
  'emphasis runs *a**': (size) => repeatTo('*a**', size),
  'brackets [': (size) => repeatTo('[', size),
  'list items - a': (size) => repeatTo('- a\n', size),
  'table rows': (size) => `| a | b |\n|---|---|\n${repeatTo('| x | y |\n', size - 20)}`,
  'quotes at the depth limit': (size) => repeatTo(`${'> '.repeat(50)}a\n\n`, size),
  'plain prose': (size) => repeatTo(PROSE_UNIT, size),
};

const DOORS = ['speech job (spokenTextOf)', 'spoken text (spokenText)'] as const;
type Door = (typeof DOORS)[number];

interface CaseResult {
  ms: number;
  outcome: string;
}

const runCase = (root: string, door: Door, markdown: string): Promise<CaseResult> =>
  new Promise((resolve) => {
    const worker = new Worker(new URL('./markdown-case.mjs', import.meta.url), {
      workerData: { door, markdown, root },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ ms: Number.POSITIVE_INFINITY, outcome: `cut off after ${CASE_TIMEOUT_MS / 1000} s` });
    }, CASE_TIMEOUT_MS);
    worker.once('message', (result: CaseResult) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ms: Number.NaN, outcome: `worker error ${error.message.slice(0, 40)}` });
    });
  });

const ms = (value: number) =>
  Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)} ms` : value > 0 ? 'cut off' : 'n/a';

export const benchMarkdown = async (
  root: string,
  apiUrl: string,
  apiKey: string,
  write: (line: string) => void,
) => {
  // `BENCH_MARKDOWN_DOMAIN=0` runs the gateway pass only, `BENCH_MARKDOWN_HTTP=0` the domain functions only.
  if (process.env.BENCH_MARKDOWN_DOMAIN !== '0') {
    write(
      `\n== Markdown read aloud: time per request by family and size (domain functions, a worker thread per case, cut off after ${CASE_TIMEOUT_MS / 1000} s)\n`,
    );
    write(
      `${'family'.padEnd(28)} ${'door'.padEnd(28)} ${SIZES.map((s) => `${s / 1000}k`.padStart(10)).join('')} ${'100k/10k'.padStart(9)}  outcome at 100k\n`,
    );
    for (const [family, build] of Object.entries(MARKDOWN_FAMILIES)) {
      for (const door of DOORS) {
        const results: CaseResult[] = [];
        for (const size of SIZES) results.push(await runCase(root, door, build(size)));
        const first = results[0]?.ms ?? Number.NaN;
        const last = results[results.length - 1];
        const ratio = (last?.ms ?? Number.NaN) / first;
        write(
          `${family.padEnd(28)} ${door.padEnd(28)} ${results.map((r) => ms(r.ms).padStart(10)).join('')} ${(Number.isFinite(ratio) ? ratio.toFixed(1) : '-').padStart(9)}  ${last?.outcome ?? ''}\n`,
        );
      }
    }
  }
  if (process.env.BENCH_MARKDOWN_HTTP === '0') return;
  write(
    `\n== POST /v1/speech/jobs at 100k through the local gateway, with GET /v1/public/plans probed ${PROBE_DELAY_MS} ms after it left\n`,
  );
  write(
    `${'family'.padEnd(28)} ${'status'.padStart(7)} ${'request'.padStart(10)} ${'probe'.padStart(10)}  first answered\n`,
  );
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  for (const [family, build] of Object.entries(MARKDOWN_FAMILIES)) {
    const body = JSON.stringify({ markdown: build(100_000) });
    let firstAnswered = '';
    const started = performance.now();
    const request = fetch(`${apiUrl}/v1/speech/jobs`, { method: 'POST', headers, body }).then(async (res) => {
      const json = (await res.json()) as { job?: { id?: string } };
      firstAnswered ||= 'request';
      return { status: res.status, ms: performance.now() - started, jobId: json.job?.id };
    });
    await new Promise((resolve) => setTimeout(resolve, PROBE_DELAY_MS));
    // The stack runs in this process: a timer held by a blocked event loop fires late, so the probe's wait is
    // counted from when it was due to leave.
    const probeStarted = started + PROBE_DELAY_MS;
    const probe = fetch(`${apiUrl}/v1/public/plans`).then(async (res) => {
      await res.text();
      firstAnswered ||= 'probe';
      return performance.now() - probeStarted;
    });
    const [answer, probeMs] = await Promise.all([request, probe]);
    // A job that was accepted is canceled at once: the figure is the request's, not the synthesis's.
    if (answer.jobId)
      await fetch(`${apiUrl}/v1/speech/jobs/${answer.jobId}/cancel`, { method: 'POST', headers });
    write(
      `${family.padEnd(28)} ${String(answer.status).padStart(7)} ${ms(answer.ms).padStart(10)} ${ms(probeMs).padStart(10)}  ${firstAnswered}\n`,
    );
  }
};
