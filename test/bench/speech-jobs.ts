import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Part of `npm run bench -- jobs`: a 12,000-character speech job, enqueue → `done` through the local stack,
 * against running espeak-ng and ffmpeg directly on the same spoken text with the same parallelism (each
 * sentence to WAV with `availableParallelism()` at a time, then one ffmpeg join and mp3 encode: the commands
 * the local engine runs, `functions/local/long-speech.ts`). Each run speaks a new text (nothing is reused);
 * direct and job runs alternate so the machine's load touches both alike. The client polls GET every POLL_MS, as
 * a client would (every poll costs the 2-core machine CPU the synthesis would use). Reports the medians, the ratio
 * (target ≤ 1.3) and the job's overhead besides the engine's own run.
 */
const RUNS = Number(process.env.BENCH_SPEECH_RUNS ?? 3);
const POLL_MS = 250;
const CHARACTERS = 12_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const s = (ms: number) => `${(ms / 1000).toFixed(2).padStart(7)} s`;

export const benchSpeechJob = async (apiUrl: string, write: (line: string) => void) => {
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { rewriteMarkdown } = await import('../../functions/shared/domain/spoken-text');
  const { splitSentences } = await import('../../functions/shared/domain/sentences');
  const { speakSentences, joinWavs } = await import('../../functions/local/long-speech');
  const { DEFAULT_VOICE_PROFILE } = await import('../../functions/shared/types/speech-voices');
  const { espeakVoiceOf } = await import('../../functions/local/speech-voices');
  const speechTasks = await import('../../functions/local/step-functions/speech-job-tasks');
  const { markdownDocument } = await import('../fixtures/long-markdown');

  const now = new Date();
  const company = await createCompanyWithPlan({ name: 'Speech job bench', planId: 'legacy-pro' }, now);
  const apiKey = (await createApiKey(company.companyId, { name: 'bench', scopes: [...SCOPES] }, now)).key;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };

  const direct = async (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-speech-'));
    try {
      const started = performance.now();
      const signal = new AbortController().signal;
      const spoken = await speakSentences(
        splitSentences(text),
        espeakVoiceOf(DEFAULT_VOICE_PROFILE),
        dir,
        signal,
      );
      await joinWavs(
        spoken.map((p) => p.wav),
        'mp3',
        dir,
        join(dir, 'audio.mp3'),
        signal,
      );
      return performance.now() - started;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const job = async (markdown: string) => {
    const started = performance.now();
    const res = await fetch(`${apiUrl}/v1/speech/jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ markdown, format: 'mp3' }),
    });
    const { job: created } = (await res.json()) as { job: { id: string } };
    if (res.status !== 202) throw new Error(`bench job refused: ${res.status}`);
    const before = new Set(speechTasks.engineRuns.keys());
    for (;;) {
      const got = (await fetch(`${apiUrl}/v1/speech/jobs/${created.id}`, { headers }).then((r) =>
        r.json(),
      )) as {
        job: { status: string; durationSeconds: number | null };
      };
      if (got.job.status === 'done') break;
      if (got.job.status !== 'pending' && got.job.status !== 'synthesizing')
        throw new Error(`bench job ${created.id} ${got.job.status}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const total = performance.now() - started;
    const engine = [...speechTasks.engineRuns.entries()].find(([id]) => !before.has(id))?.[1] ?? Number.NaN;
    return { total, engine };
  };

  const directs: number[] = [];
  const jobs: { total: number; engine: number }[] = [];
  let characters = 0;
  for (let run = 0; run < RUNS; run++) {
    const markdown = markdownDocument(CHARACTERS, `bench${run}${Date.now().toString(36)}`);
    const spoken = await rewriteMarkdown(markdown);
    characters = spoken.length;
    directs.push(await direct(spoken));
    jobs.push(await job(markdown));
  }
  const d = median(directs);
  const j = median(jobs.map((x) => x.total));
  const e = median(jobs.map((x) => x.engine));
  write('\n== Speech job: 12,000 characters of markdown to one mp3 with sentence timings\n');
  write(
    `(median of ${RUNS} alternating runs; ${availableParallelism()} cores; ${characters} spoken characters)\n`,
  );
  write(`  espeak-ng + ffmpeg directly     ${s(d)}\n`);
  write(`  job, enqueue → done             ${s(j)}\n`);
  write(`  ratio job / direct              ${(j / d).toFixed(2).padStart(9)}   (target ≤ 1.30)\n`);
  write(`  engine's own run in the job     ${s(e)}\n`);
  write(`  job overhead (total − engine)   ${s(j - e)}\n`);
};
