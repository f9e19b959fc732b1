import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, verifyWebhook, WebhookVerificationError } from '@messaging-dynadata-api/sdk';

/**
 * Receives webhook deliveries and verifies each before trusting it: a local receiver (`WEBHOOK_URL` names the
 * public URL that reaches it, when the API cannot reach this machine directly), an endpoint registered for
 * it, a test event sent and its delivery verified.
 */
const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});
let secret = '';
let received: (id: string) => void = () => {};
const delivered = new Promise<string>((resolve) => {
  received = resolve;
});

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString('utf8');
  });
  request.on('end', () => {
    try {
      const event = verifyWebhook(secret, body, request.headers); // the raw body, before parsing it
      console.log(`verified: ${event.type} ${event.id}`);
      response.writeHead(204).end();
      received(event.id);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      response.writeHead(400).end();
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = process.env.WEBHOOK_URL ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

const created = await client.webhooks.create({ url, events: ['transcode.*'], description: 'SDK example' });
secret = created.secret ?? '';
const { event } = await client.webhooks.test(created.endpoint.id);
console.log(`sent: ${event.type} ${event.id}`);
const id = await delivered;
console.log(id === event.id ? 'delivery verified' : 'another event arrived first');
await client.webhooks.delete(created.endpoint.id);
server.close();
