import { createClient } from '@messaging-dynadata-api/sdk';

/** Synthesizes speech as a job and waits for the stored audio. */
const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});

const { job } = await client.speech.jobs.create({ text: 'Your order has shipped.', format: 'mp3' });
const done = await client.speech.jobs.waitUntilDone(job.id, { initialDelayMs: 500, maxDelayMs: 2_000 });
if (done.status !== 'done' || !done.result) throw new Error(`speech job ${done.status}: ${done.error?.code}`);
console.log(`speech ${done.status}: ${done.result.audio.fullPath}`);
