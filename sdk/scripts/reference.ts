import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { isObject, type OperationFacts, operationTable, resolve as resolveRef } from './operation-table';
import { ALL_ITEMS_NAME, parseSdkName, type SdkMethodFacts, WAITER_NAME } from './sdk-methods';

/**
 * The SDK reference (`docs/reference/`), read out of the OpenAPI document: one page per tag of the document
 * with, for each operation the SDK offers (`x-sdk-method`), its summary and description, method and path,
 * scope, the resource method's call filled from the operation's request example, its waiter or page
 * iterator, each success answer's example and the problem codes each refusal status can carry. Nothing of an
 * operation is written here by hand: a route's change reaches the reference at the next `npm run reference`,
 * and `sdk/test/unit/reference.test.ts` fails while the committed pages differ from what this writes.
 */

type Json = Record<string, unknown>;

/** A local `$ref` followed to the object it names, `{}` for anything else. */
const resolve = (document: Json, value: unknown): Json => resolveRef(document, value) ?? {};

/** A tag's page: its file under `docs/reference/` and the guides of its area (relative to `docs/`). */
interface Area {
  file: string;
  guides: readonly string[];
  /** What the SDK adds to the area beyond the document's operations. */
  note?: string;
}

/** Pages of the document's tags; a tag not listed gets a page named after it, with no guide. */
const AREAS: Readonly<Record<string, Area>> = {
  Plans: { file: 'plans', guides: ['usage-and-quotas.md'] },
  Meta: { file: 'meta', guides: ['openapi.md'] },
  Company: { file: 'company', guides: ['authentication.md', 'usage-and-quotas.md'] },
  'API keys': { file: 'keys', guides: ['authentication.md'] },
  Contacts: { file: 'messaging', guides: ['dynadata-and-messaging.md'] },
  Dynadata: { file: 'dynadata', guides: ['dynadata-and-messaging.md'] },
  Storage: {
    file: 'storage',
    guides: ['storage.md'],
    note: "`client.storage.upload(source, { contentType, name?, checksum? })` stores a file in one call: the single upload's three steps below up to 16 MiB, a multipart upload above (aborted on a failure); it answers `completeUpload`'s answer, whose `{ bucket, fullPath }` is the file's storage reference ([sdk/README.md](../../sdk/README.md)).",
  },
  Transcriptions: { file: 'transcriptions', guides: ['transcriptions.md', 'jobs-and-data.md'] },
  'Media transforms': { file: 'transcodes', guides: ['transcodes.md', 'jobs-and-data.md'] },
  Speech: { file: 'speech', guides: ['speech.md'] },
  Usage: { file: 'usage', guides: ['usage-and-quotas.md'] },
  Workflows: { file: 'workflows', guides: ['workflows.md'] },
  Webhooks: { file: 'webhooks', guides: ['events-and-webhooks.md'] },
  Events: { file: 'events', guides: ['events-and-webhooks.md'] },
};

/** Values of parameters that no example of their operation holds. */
const SAMPLES: Readonly<Record<string, string>> = {
  type: 'contacts',
  fullPath: 'companies/co_01jd3xq0a6m5r6y1z8k7w2v4bn/uploads/01jd3xq0b2/greeting.wav',
  from: '2026-09',
  to: '2026-11',
};

const areaOf = (tag: string): Area =>
  AREAS[tag] ?? {
    file: tag
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    guides: [],
  };

/** The first string or number held under `name` anywhere in `value`, breadth first. */
const findValue = (value: unknown, name: string): string | number | undefined => {
  let level: unknown[] = [value];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const one of level) {
      if (Array.isArray(one)) next.push(...one);
      else if (isObject(one)) {
        const found = one[name];
        if (typeof found === 'string' || typeof found === 'number') return found;
        next.push(...Object.values(one));
      }
    }
    level = next;
  }
  return undefined;
};

const exampleOf = (document: Json, media: unknown): unknown => {
  const content = resolve(document, media);
  if ('example' in content) return content.example;
  const examples = resolve(document, content.examples);
  const [first] = Object.values(examples);
  return first === undefined ? undefined : resolve(document, first).value;
};

interface Answer {
  status: string;
  description: string;
  example: unknown;
  json: boolean;
}

const successAnswers = (document: Json, operation: Json): Answer[] =>
  Object.entries(resolve(document, operation.responses))
    .filter(([status]) => /^2\d\d$/.test(status))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, value]) => {
      const response = resolve(document, value);
      const content = resolve(document, response.content);
      const json = content['application/json'];
      return {
        status,
        description: String(response.description ?? ''),
        example: json === undefined ? undefined : exampleOf(document, json),
        json: json !== undefined,
      };
    });

/** Problem codes by refusal status: the `code` enum of each problem answer. */
const refusals = (document: Json, operation: Json): [string, string[]][] =>
  Object.entries(resolve(document, operation.responses))
    .filter(([status]) => /^[45]\d\d$/.test(status))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, value]) => {
      const media = resolve(document, resolve(document, value).content)['application/problem+json'];
      const schema = resolve(document, resolve(document, media).schema);
      // The operation's own codes: the inline member of `allOf` (the shared `Problem` lists every code).
      const parts = Array.isArray(schema.allOf) ? schema.allOf.filter((p) => !('$ref' in p)) : [schema];
      const codes = parts.flatMap((part) => {
        const code = resolve(document, resolve(document, resolve(document, part).properties).code);
        return Array.isArray(code.enum) ? code.enum.map(String) : [];
      });
      const named =
        codes.length > 0 ? codes : Object.keys(resolve(document, resolve(document, media).examples));
      return [status, named];
    });

const ts = (value: unknown): string => JSON.stringify(value, null, 2);

/** The success examples of the read of the resource that path parameter `name` names (`GET /v1/x/{name}`). */
const readOf = (document: Json, path: string, name: string): unknown[] => {
  const end = path.indexOf(`{${name}}`);
  if (end < 0) return [];
  const read = resolve(
    document,
    resolve(document, resolve(document, document.paths)[path.slice(0, end + name.length + 2)]).get,
  );
  return successAnswers(document, read).map((a) => a.example);
};

/** Stands for a required body of which the document shows no example. */
const BODY = Symbol('body');

/**
 * A call of the method, or of its member `member` (`list.all`, `waitUntilDone`), filled from the operation's
 * examples: `client.dynadata.items('contacts').get('…')`; `withInput` adds the input object.
 */
const callOf = (
  document: Json,
  operation: Json,
  facts: OperationFacts,
  member: string,
  withInput: boolean,
) => {
  const sdk = facts.sdk as SdkMethodFacts;
  const answers = successAnswers(document, operation);
  const requestMedia = resolve(document, resolve(document, operation.requestBody).content)[
    'application/json'
  ];
  const request = requestMedia === undefined ? undefined : exampleOf(document, requestMedia);
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((p) =>
    resolve(document, p),
  );
  const sampleOf = (name: string): string | number => {
    const parameter = parameters.find((p) => p.name === name);
    const declared = parameter?.example ?? resolve(document, parameter?.schema).example;
    if (typeof declared === 'string' || typeof declared === 'number') return declared;
    const sample = SAMPLES[name];
    if (sample !== undefined) return sample;
    for (const source of [request, ...readOf(document, facts.path, name), ...answers.map((a) => a.example)]) {
      const found = findValue(source, name);
      if (found !== undefined) return found;
    }
    return `<${name}>`;
  };
  const path = parseSdkName(sdk.name)
    .namespace.map((s) => (s.bound === undefined ? s.name : `${s.name}(${ts(sampleOf(s.bound))})`))
    .join('.');
  const args = sdk.args.map((name) => ts(sampleOf(name)));
  if (withInput) {
    const required = parameters.filter((p) => p.in === 'query' && p.required === true);
    const input =
      sdk.body !== null
        ? (request ?? (sdk.body === 'required' ? BODY : undefined))
        : required.length > 0
          ? Object.fromEntries(required.map((p) => [String(p.name), sampleOf(String(p.name))]))
          : undefined;
    if (input !== undefined) args.push(input === BODY ? '{ /* the request body */ }' : ts(input));
  }
  return `client.${path}.${member}(${args.join(', ')})`;
};

const section = (document: Json, id: string, facts: OperationFacts, operation: Json): string[] => {
  const sdk = facts.sdk;
  if (sdk === null) return [];
  const scope = operation['x-required-scope'];
  const lines = [`## \`${sdk.name}\``, '', `${String(operation.summary ?? id)}.`.replace(/\.\.$/, '.'), ''];
  const traits = [
    `\`${facts.method.toUpperCase()} ${facts.path}\``,
    typeof scope === 'string' ? `scope \`${scope}\`` : 'no credential',
    `operation \`${id}\``,
    ...(facts.idempotencyKey ? ['sends an `Idempotency-Key`'] : []),
    ...(facts.page === null ? [] : [`paged (\`${facts.page.items}\`)`]),
  ];
  lines.push(traits.join(' · '), '');
  if (typeof operation.description === 'string') lines.push(operation.description, '');
  const answers = successAnswers(document, operation);
  const verb = parseSdkName(sdk.name).verb;
  const call = callOf(document, operation, facts, verb, true);
  const code = [answers.some((a) => a.json) ? `const answer = await ${call};` : `await ${call};`];
  if (facts.page !== null) {
    const all = callOf(document, operation, facts, `${verb}.${ALL_ITEMS_NAME}`, true);
    code.push(`for await (const one of ${all}) console.log(one);`);
  }
  if (sdk.waiter !== null) {
    const final = sdk.waiter.final.map((s) => `'${s}'`).join(' | ');
    const waiter = callOf(document, operation, facts, WAITER_NAME, false);
    code.push(`const ${sdk.waiter.member} = await ${waiter}; // status ${final}`);
  }
  lines.push('```ts', ...code, '```', '');
  for (const answer of answers) {
    const what = answer.description === 'Success' ? '' : ` (${answer.description.replace(/\.$/, '')})`;
    if (!answer.json) {
      lines.push(`Answers \`${answer.status}\`${what}, no JSON body.`, '');
      continue;
    }
    lines.push(`Answers \`${answer.status}\`${what}:`, '');
    if (answer.example !== undefined)
      lines.push('```json', JSON.stringify(answer.example, null, 2), '```', '');
  }
  const refused = refusals(document, operation).filter(([, codes]) => codes.length > 0);
  if (refused.length > 0) {
    lines.push('| status | `ApiError.code` |', '| --- | --- |');
    for (const [status, codes] of refused)
      lines.push(`| ${status} | ${codes.map((c) => `\`${c}\``).join(', ')} |`);
    lines.push('');
  }
  return lines;
};

const clients = (namespaces: string[]): string => namespaces.map((n) => `\`client.${n}\``).join(', ');

const GENERATED = '<!-- Generated from the OpenAPI document by `npm run reference`: do not edit. -->';

/** The reference pages (`file name → markdown`, unformatted), index `README.md` included. */
export const referencePages = (document: Json): Record<string, string> => {
  const table = operationTable(document);
  const tags = (Array.isArray(document.tags) ? document.tags : []).map((t) => resolve(document, t));
  const byTag = new Map<string, string[]>();
  const operations = new Map<string, Json>();
  for (const pathItem of Object.values(resolve(document, document.paths))) {
    for (const value of Object.values(resolve(document, pathItem))) {
      const operation = resolve(document, value);
      const id = operation.operationId;
      if (typeof id !== 'string' || table[id]?.sdk == null) continue;
      operations.set(id, operation);
      const [tag = 'Other'] = Array.isArray(operation.tags) ? operation.tags.map(String) : [];
      byTag.set(tag, [...(byTag.get(tag) ?? []), id]);
    }
  }
  const pages: Record<string, string> = {};
  const index = [
    '# SDK reference',
    '',
    GENERATED,
    '',
    "Every operation of the API offered by the TypeScript SDK (`@messaging-dynadata-api/sdk`, [its README](../../sdk/README.md)), one page per area, read out of the OpenAPI document: the resource method, its call filled from the operation's request example, the example of its answer and the `code` of each refusal. The calls use a client made once:",
    '',
    '```ts',
    "import { createClient } from '@messaging-dynadata-api/sdk';",
    '',
    "const client = createClient({ baseUrl: 'https://api.example.com', credential: { apiKey: process.env.API_KEY ?? '' } });",
    '```',
    '',
    'A method resolves to the success body and throws an `ApiError` (`status`, `code`, `requestId`) on a refusal; `method.isError(error)` narrows `code` to the codes listed for its operation. A paged list also iterates every element of every page with `.all(…)`; a job read has a `waitUntilDone(…)` that polls until a final status. Runnable programs: [sdk/examples](../../sdk/examples).',
    '',
    '| area | methods | operations |',
    '| --- | --- | --- |',
  ];
  for (const tag of tags) {
    const name = String(tag.name);
    const ids = byTag.get(name);
    if (ids === undefined) continue;
    byTag.delete(name);
    write(pages, index, name, String(tag.description ?? ''), ids, table, operations, document);
  }
  for (const [name, ids] of byTag) write(pages, index, name, '', ids, table, operations, document);
  pages['README.md'] = `${[...index, ''].join('\n')}`;
  return pages;
};

const write = (
  pages: Record<string, string>,
  index: string[],
  tag: string,
  description: string,
  ids: string[],
  table: Record<string, OperationFacts>,
  operations: Map<string, Json>,
  document: Json,
) => {
  const area = areaOf(tag);
  const namespaces = [...new Set(ids.map((id) => table[id]?.sdk?.name.split(/[.(]/)[0] ?? ''))];
  const guides = area.guides.map((guide) => `[${guide.replace(/\.md$/, '')}](../${guide})`);
  const lines = [
    `# ${tag}: ${clients(namespaces)}`,
    '',
    GENERATED,
    '',
    ...(description === '' ? [] : [description, '']),
    ...(guides.length === 0
      ? []
      : [`Guide: ${guides.join(', ')}. All areas: [the reference](README.md).`, '']),
    ...(area.note === undefined ? [] : [area.note, '']),
  ];
  for (const id of ids) {
    const facts = table[id];
    const operation = operations.get(id);
    if (facts !== undefined && operation !== undefined)
      lines.push(...section(document, id, facts, operation));
  }
  pages[`${area.file}.md`] = `${lines.join('\n').replace(/\n+$/, '')}\n`;
  index.push(`| [${tag}](${area.file}.md) | ${clients(namespaces)} | ${ids.length} |`);
};

/** `pages` as Biome formats them (the repository's formatter, so `biome check` agrees with the files). */
export const formatPages = (pages: Record<string, string>, root: string): Record<string, string> => {
  const biome = join(root, 'node_modules', '.bin', 'biome');
  return Object.fromEntries(
    Object.entries(pages).map(([file, text]) => [
      file,
      execFileSync(biome, ['format', `--stdin-file-path=docs/reference/${file}`], {
        cwd: root,
        input: text,
        encoding: 'utf8',
      }),
    ]),
  );
};
