import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wavHeader } from '../../functions/shared/aws/polly';

/**
 * Seeds one tenant with real things for the contract tests to reach deep code: a custom Dynadata type with
 * items, contacts, a webhook delivery channel (a loopback receiver that answers 200), a stored object
 * uploaded through the storage routes, and a transcode job. The runtime modules must already point at the
 * local stack (`process.env`); `dataDir` is the stack's data directory (the operator CLI reads its keys).
 *
 * The company gets limit overrides big enough that thousands of requests stay under its quotas, except the
 * transcode queue, which stays small so generated requests do not start many conversions.
 */
export interface SeededTenant {
  companyId: string;
  apiKey: string;
  /** A key of the same company holding only `company:read`. */
  limitedKey: string;
  /** A revoked key of the same company. */
  revokedKey: string;
  /**
   * Real values by parameter or property name, for generated requests to use; under `{}`, objects of the
   * tenant's real shapes for free-form bodies (item fields, function input).
   */
  values: Record<string, unknown[]>;
  close: () => Promise<void>;
}

export const ORDER_TYPE = 'orders';
const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    amount: { type: 'number', minimum: 0 },
    status: { enum: ['open', 'paid', 'void'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
  },
  required: ['title', 'amount'],
  additionalProperties: false,
  'x-indexed': ['amount'],
};

/** A valid WAV file of `seconds` of 8 kHz mono 16-bit silence with a short tone. */
export const wavBytes = (seconds = 1): Buffer => {
  const rate = 8000;
  const samples = rate * seconds;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(8000 * Math.sin((i * 2 * Math.PI * 440) / rate)), i * 2);
  return Buffer.concat([wavHeader(data.length, rate), data]);
};

const json = async (apiUrl: string, apiKey: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding ${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

/** A workflow of the seeded tenant: one cheap step and a return. */
export const CONTRACT_WORKFLOW = {
  id: 'contract',
  name: 'Contract workflow',
  input: { type: 'object', properties: { name: { type: 'string' } } },
  steps: [
    { id: 'spoken', action: 'actions/speech/spoken-text', with: { markdown: '# Hello {{ input.name }}' } },
  ],
  return: { text: '{{ steps.spoken.output.text }}' },
};

export const seedTenant = async (apiUrl: string, dataDir: string): Promise<SeededTenant> => {
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey, revokeApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { companyKey } = await import('../../functions/shared/data/companies');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { runCli } = await import('../../functions/admin/cli');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');

  const now = new Date();
  const company = await createCompanyWithPlan({ name: 'Contract tenant', planId: 'free' }, now);
  const { companyId } = company;
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: companyKey(companyId),
      UpdateExpression: 'SET limitOverrides = :o',
      ExpressionAttributeValues: {
        ':o': {
          apiRequestsPerMonth: 100_000_000,
          // The fuzz runs thousands of requests as fast as it can; the request rate is tested on its own.
          requestsPerSecond: 100_000,
          burst: 100_000,
          storageBytes: 10 * 1024 ** 3,
          databaseBytes: 1024 ** 3,
          speechCharactersPerMonth: 10_000_000,
          transcriptionSecondsPerMonth: 1_000_000,
          workflowRunsPerMonth: 1_000_000,
          transcodeSecondsPerMonth: 100_000,
          transcodeQueueCap: 2,
          speechJobQueueCap: 1,
        },
      },
    }),
  );
  // The tenant's speech job queue is held full, so every enqueue it is fuzzed with is refused (429
  // speech_job_queue_full): a fuzzed text at the 100,000-character limit (brackets, astral letters) would
  // otherwise synthesize hours of audio on the test machine. A job's success is covered by the speech job tests.
  const { SPEECH_JOB_TYPE } = await import('../../functions/shared/domain/speech-jobs');
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...SPEECH_JOB_TYPE.lifecycle.queueKey(companyId), entity: 'speech_job_queue', unfinished: 1 },
    }),
  );
  const apiKey = (await createApiKey(companyId, { name: 'contract', scopes: [...SCOPES] }, now)).key;
  const limitedKey = (await createApiKey(companyId, { name: 'limited', scopes: ['company:read'] }, now)).key;
  const revoked = await createApiKey(companyId, { name: 'revoked', scopes: [...SCOPES] }, now);
  await revokeApiKey(companyId, revoked.record.keyId, now, Math.floor(now.getTime() / 1000) + 3700);

  const admin = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli([...args, '--data-dir', dataDir], {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    if (code !== 0) throw new Error(`admin ${args.join(' ')} failed: ${err}`);
    return out;
  };

  const dir = mkdtempSync(join(tmpdir(), 'contract-seed-'));
  const schemaFile = join(dir, 'orders.json');
  writeFileSync(schemaFile, JSON.stringify(ORDER_SCHEMA));
  await admin('types', 'put', '--company', companyId, '--name', ORDER_TYPE, '--file', schemaFile, '--json');
  const workflowFile = join(dir, 'workflow.json');
  writeFileSync(workflowFile, JSON.stringify(CONTRACT_WORKFLOW));
  await admin('workflows', 'put', '--company', companyId, '--file', workflowFile, '--json');
  rmSync(dir, { recursive: true, force: true });

  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await admin('channels', 'set', '--company', companyId, '--url', receiverUrl, '--json');

  const orderIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const item = await json(apiUrl, apiKey, 'POST', `/v1/dynadata/type/${ORDER_TYPE}/create`, {
      title: `Order ${i}`,
      amount: i * 10,
      status: 'open',
    });
    orderIds.push(String(item._id));
  }
  const contactIds: string[] = [];
  for (const name of ['Ada', 'Grace']) {
    const item = await json(apiUrl, apiKey, 'POST', '/v1/dynadata/type/contacts/create', { name });
    contactIds.push(String(item._id));
  }

  const wav = wavBytes(1);
  const reserved = await json(apiUrl, apiKey, 'POST', '/v1/storage/upload-url', {
    fileName: 'tone.wav',
    contentType: 'audio/wav',
    size: wav.length,
  });
  const put = await fetch(String(reserved.uploadUrl), {
    method: String(reserved.method),
    headers: reserved.headers as Record<string, string>,
    body: wav,
  });
  if (!put.ok) throw new Error(`seeding upload answered ${put.status}`);
  const bucket = String(reserved.bucket);
  const fullPath = String(reserved.fullPath);
  await json(apiUrl, apiKey, 'POST', '/v1/storage/upload-complete', { bucket, fullPath });

  const job = await json(apiUrl, apiKey, 'POST', '/v1/transcodes', { fullPath, preset: 'wav' });
  const jobId = String((job.job as { id: string }).id);
  const run = await json(apiUrl, apiKey, 'POST', `/v1/workflows/${CONTRACT_WORKFLOW.id}/run`, {
    input: { name: 'Ada' },
  });

  return {
    companyId,
    apiKey,
    limitedKey,
    revokedKey: revoked.key,
    values: {
      type: [ORDER_TYPE, 'contacts', 'messages', 'log_entries'],
      _id: [...orderIds, ...contactIds],
      contactId: contactIds,
      id: [jobId, CONTRACT_WORKFLOW.id],
      runId: [String(run.runId)],
      functionName: ['count', 'sendMessage'],
      library: ['zod', 'yup', 'joi'],
      fullPath: [fullPath],
      bucket: [bucket],
      fileName: ['tone.wav', 'report.pdf'],
      contentType: ['audio/wav', 'application/pdf'],
      title: ['Order'],
      size: [wav.length, 1024],
      _version: [1, 2],
      amount: [5],
      preset: ['wav'],
      // A small pool of idempotency keys, so generated requests also replay and reuse keys (once the document
      // declares the header).
      'Idempotency-Key': ['contract-key-1', 'contract-key-2'],
      'idempotency-key': ['contract-key-1', 'contract-key-2'],
      '{}': [
        { title: 'Order', amount: 3 },
        { title: 'Paid order', amount: 4, status: 'paid', tags: ['a'] },
        { name: 'Grace', email: 'grace@example.com' },
        { filter: { amount: { gte: 1 } } },
        { type: 'text', body: { text: 'Hello' } },
      ],
    },
    close: () => new Promise<void>((r) => receiver.close(() => r())),
  };
};
