import { createClient } from '../../src/resource-client.js';

/** A request the stubbed `fetch` received. */
export interface Sent {
  method: string;
  path: string;
  query: string;
  headers: Headers;
  body: string;
}

export type StubAnswer = { status?: number; body?: unknown; headers?: Record<string, string> };

/** A resource client over a stubbed `fetch`: `answer` answers each request; `sent` records them. */
export const stubClient = (answer: (sent: Sent) => StubAnswer = () => ({ body: {} })) => {
  const sent: Sent[] = [];
  const client = createClient({
    baseUrl: 'https://api.example.test',
    credential: { apiKey: 'sk-test' },
    retry: { maxAttempts: 1 },
    fetch: async (request) => {
      const url = new URL(request.url);
      const one = {
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers: request.headers,
        body: await request.text(),
      };
      sent.push(one);
      const { status = 200, body, headers = {} } = answer(one);
      return new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      });
    },
  });
  return { client, sent };
};
