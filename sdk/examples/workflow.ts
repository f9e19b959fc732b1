import { createClient } from '@messaging-dynadata-api/sdk';

/** Defines a workflow, runs it asynchronously and waits for the run's result. */
const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});

await client.workflows.put('new-contact', {
  id: 'new-contact',
  name: 'New contact',
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  steps: [
    {
      id: 'contact',
      action: 'actions/dynadata/create',
      with: { type: 'contacts', item: { name: '{{ input.name }}' } },
    },
  ],
  return: { contactId: '{{ steps.contact.output._id }}', name: '{{ steps.contact.output.name }}' },
});
const started = await client.workflows.run('new-contact', { mode: 'async', input: { name: 'Ada Lovelace' } });
if (!('runId' in started)) throw new Error('the run finished synchronously');
const run = await client.workflows.runs.waitUntilDone('new-contact', started.runId, { initialDelayMs: 250 });
if (!run.ok) throw new Error(`run ${run.status}: ${JSON.stringify(run.failedSteps)}`);
console.log(`run ${run.status}: ${JSON.stringify(run.result)}`);
