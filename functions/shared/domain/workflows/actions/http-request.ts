import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { env } from '../../../env';
import { urlField } from '../../../fields';
import { StepOutcomeError } from '../../../step-outcomes';
import { WORKFLOW_HOP_HEADER } from '../../../workflow-hops';
import * as z from '../../../zod';
import { guardedLookup, type OutboundPolicy, webhookUrlProblem } from '../../messages/webhooks';
import { literalPartsOf } from '../references';
import { defineAction } from './registry';

/**
 * `actions/http/request`: one HTTP request under the webhook address rules (https only; no private,
 * link-local or reserved targets; the resolved address is the one connected to; loopback only in the local
 * stack). Redirects are not followed. The whole exchange has `HTTP_TIMEOUT_MS`; a response body over
 * `HTTP_MAX_RESPONSE_BYTES` fails the step. JSON responses are parsed, others returned as text.
 *
 * The answer's status decides the step: outside `expectStatus` (default `2xx`) the step fails with
 * `http_status`, its output still `{status, headers, body, statusRule}`, so `allowFailure`, `retry.on` and
 * later conditions can read it. `statusRule` says which rule judged it (`2xx`, or `expectStatus`).
 *
 * Every request carries `x-workflow-hop` one above the run's hop, set after the step's own headers; a
 * definition naming that header is refused on save, and a step whose `headers` name it through a reference
 * fails with `validation_failed`, so a definition can neither set nor lower it and a workflow that calls this
 * API to start itself is stopped by the hop limit (`workflow-hops.ts`).
 *
 * Header names and values are data. A definition is refused on save (400 `validation_failed`, pointer
 * `/steps/<i>/with/headers/<name>`) for a name that is not an RFC 9110 token, a name holding a `{{ reference }}`,
 * a header the platform sets (`PLATFORM_HEADERS`, any case) and a literal value with a character no header
 * may carry (CR, LF, NUL, another control character, or one beyond Latin-1). A name or value that is bad
 * only once its references are resolved fails the step with `invalid_header`, naming the header.
 */
export const HTTP_TIMEOUT_MS = 10_000;
export const HTTP_MAX_RESPONSE_BYTES = 256 * 1024;
/** Connection headers: Node sets them from the URL and body; a step's own are left out. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'upgrade']);
/** The headers the platform sets on a step's request (lower case): a definition may not name them. */
export const PLATFORM_HEADERS: ReadonlySet<string> = new Set([WORKFLOW_HOP_HEADER, ...HOP_HEADERS]);
/** RFC 9110 `token`, the grammar of a field name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 field value characters as Node sends them: tab, visible ASCII, space and obs-text (Latin-1). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const NAME_MESSAGE = "is not a header name: use letters, digits and !#$%&'*+-.^_`|~ only (an RFC 9110 token)";
const VALUE_MESSAGE =
  'holds a character a header value may not carry (CR, LF, NUL, another control character, or one beyond Latin-1)';

/** A header that is bad once the step's references are resolved. The value itself is never repeated. */
const invalidHeader = (name: string, problem: string) =>
  new StepOutcomeError('invalid_header', `The header ${JSON.stringify(name)} ${problem}.`, { header: name });

/** Save-time checks of `with.headers` (`WorkflowAction.withProblems`). */
const headerProblems = (
  value: Record<string, unknown>,
  pointer: string,
  add: (p: string, m: string) => void,
) => {
  const headers = value.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return;
  for (const [name, headerValue] of Object.entries(headers)) {
    const at = `${pointer}/headers/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (name.includes('{{')) add(at, 'a header name may not hold a {{ reference }}');
    else if (!HEADER_NAME.test(name)) add(at, NAME_MESSAGE);
    else if (PLATFORM_HEADERS.has(name.toLowerCase()))
      add(at, `${name} is set by the platform, not by a step`);
    if (typeof headerValue === 'string') {
      // The literal parts only: a reference's value is checked when the step runs.
      if (!HEADER_VALUE.test(literalPartsOf(headerValue))) add(at, VALUE_MESSAGE);
    }
  }
};

/** An accepted status: a code (`404`), a class (`4xx`) or an inclusive range (`200-299`). */
const STATUS_RULE = /^([1-5]xx|[1-5][0-9]{2}-[1-5][0-9]{2})$/;
const STATUS_MESSAGE = 'must be a status (100 to 599), a class such as "4xx", or a range such as "200-299"';

const statusAccepted = (status: number, rules: readonly (number | string)[]): boolean =>
  rules.some((rule) => {
    if (typeof rule === 'number') return rule === status;
    if (rule.endsWith('xx')) return Math.floor(status / 100) === Number(rule[0]);
    const [from = 0, to = 0] = rule.split('-').map(Number);
    return status >= from && status <= to;
  });

/** Save-time checks of a literal `with.expectStatus`. */
const expectStatusProblems = (
  value: Record<string, unknown>,
  pointer: string,
  add: (p: string, m: string) => void,
) => {
  const rules = value.expectStatus;
  if (!Array.isArray(rules)) return;
  rules.forEach((rule: unknown, i) => {
    const valid =
      (typeof rule === 'number' && Number.isInteger(rule) && rule >= 100 && rule <= 599) ||
      (typeof rule === 'string' && (rule.includes('{{') || STATUS_RULE.test(rule)));
    if (!valid) add(`${pointer}/expectStatus/${i}`, STATUS_MESSAGE);
  });
};

/** `reason` tells a step's `retry` what failed (`../retry.ts`). */
const failed = (message: string, reason: 'timeout' | 'network' | 'too_large' = 'network') =>
  new StepOutcomeError('http_request_failed', message, { reason });

const responseHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]],
    ),
  );

const send = (
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  policy: OutboundPolicy,
): Promise<{ status: number; headers: Record<string, string>; text: string }> =>
  new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(HTTP_TIMEOUT_MS);
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        lookup: guardedLookup(url, policy),
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > HTTP_MAX_RESPONSE_BYTES) {
            req.destroy(failed(`The response is larger than ${HTTP_MAX_RESPONSE_BYTES} bytes.`, 'too_large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders(res.headers),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error: Error) =>
      reject(
        error instanceof StepOutcomeError
          ? error
          : signal.aborted
            ? failed(`No answer within ${HTTP_TIMEOUT_MS} ms.`, 'timeout')
            : error.name === 'WebhookRejectedError'
              ? new StepOutcomeError(
                  'http_target_refused',
                  'The host resolves to an address that is not allowed.',
                )
              : failed(`The request failed: ${error.message}`),
      ),
    );
    req.end(body);
  });

export const httpRequestAction = defineAction({
  name: 'actions/http/request',
  scope: 'workflows:run',
  maxDurationMs: HTTP_TIMEOUT_MS + 1_000,
  get input() {
    return z
      .object({
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
        url: urlField('The URL to call, under the webhook address rules (`https`, a public address).'),
        headers: z
          .record(z.string(), z.string().max(8192))
          .superRefine((headers, issues) => {
            for (const name of Object.keys(headers))
              if (name.toLowerCase() === WORKFLOW_HOP_HEADER)
                issues.addIssue({
                  code: 'custom',
                  path: [name],
                  message: `${WORKFLOW_HOP_HEADER} is set by the platform, not by a step`,
                });
          })
          .optional(),
        body: z.unknown().optional(),
        expectStatus: z
          .array(z.union([z.number().int().min(100).max(599), z.string().regex(STATUS_RULE, STATUS_MESSAGE)]))
          .min(1)
          .max(20)
          .optional()
          .describe('The statuses that make the step succeed (default `["2xx"]`).'),
      })
      .strict();
  },
  withProblems: (value, pointer, add) => {
    headerProblems(value, pointer, add);
    expectStatusProblems(value, pointer, add);
  },
  run: async (input, ctx) => {
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      if (!HEADER_NAME.test(name)) throw invalidHeader(name, NAME_MESSAGE);
      if (!HEADER_VALUE.test(value)) throw invalidHeader(name, `has a value that ${VALUE_MESSAGE}`);
    }
    const policy = env().outbound;
    const problem = webhookUrlProblem(input.url, policy);
    if (problem) throw new StepOutcomeError('http_target_refused', `url ${problem}.`);
    const headers = Object.fromEntries(
      Object.entries(input.headers ?? {}).filter(([k]) => !HOP_HEADERS.has(k.toLowerCase())),
    );
    let body: string | undefined;
    if (input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD') {
      body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      if (
        typeof input.body !== 'string' &&
        !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')
      )
        headers['content-type'] = 'application/json';
    }
    headers[WORKFLOW_HOP_HEADER] = String(ctx.hop + 1);
    const res = await send(new URL(input.url), input.method, headers, body, policy);
    let parsed: unknown = res.text;
    if ((res.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(res.text);
      } catch {
        parsed = res.text;
      }
    }
    const statusRule = input.expectStatus ? 'expectStatus' : '2xx';
    const output = { status: res.status, headers: res.headers, body: parsed, statusRule };
    if (!statusAccepted(res.status, input.expectStatus ?? ['2xx'])) {
      throw new StepOutcomeError(
        'http_status',
        `The answer's status ${res.status} is outside ${input.expectStatus ? `expectStatus ${JSON.stringify(input.expectStatus)}` : '2xx'}.`,
        { httpStatus: res.status, output },
      );
    }
    return output;
  },
});
