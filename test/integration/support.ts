import { inject } from 'vitest';
import type { PlanLimits } from '../../functions/shared/types/plans';
import type { Scope } from '../../functions/shared/types/scopes';

const stack = inject('stack');
Object.assign(process.env, stack.env, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });

export const apiUrl = stack.apiUrl;
export const demoApiKey = stack.demoApiKey;

/** Calls the local stack over real HTTP. */
export const call = async (
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
) => {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    json = { raw: text };
  }
  return { status: response.status, headers: response.headers, json };
};

/**
 * A fresh tenant for one test: a company and an API key written straight to the stack's DynamoDB Local
 * through the same data modules the operator CLI uses.
 */
export const createTenant = async (
  options: {
    plan?: string;
    scopes?: Scope[];
    name?: string;
    limits?: Partial<PlanLimits>;
    /** Keep the plan's own request rate (by default test tenants are not throttled; see `UNTHROTTLED`). */
    planRate?: boolean;
  } = {},
) => {
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const now = new Date();
  const company = await createCompanyWithPlan(
    {
      name: options.name ?? `Tenant ${Math.random().toString(36).slice(2, 8)}`,
      planId: options.plan ?? 'free',
    },
    now,
  );
  if (!options.planRate || options.limits) {
    const { setCompanyLimitOverrides } = await import('./storage-support');
    await setCompanyLimitOverrides(company.companyId, options.limits ?? {});
  }
  const { record, key } = await createApiKey(
    company.companyId,
    { name: 'test', scopes: options.scopes ?? [...SCOPES] },
    now,
  );
  return { companyId: company.companyId, keyId: record.keyId, apiKey: key };
};

export const revokeKey = async (companyId: string, keyId: string) => {
  const { revokeKeyAndDerivedTokens } = await import('../../functions/shared/domain/api-keys');
  await revokeKeyAndDerivedTokens(companyId, keyId, new Date());
};

export const expectProblem = (
  response: Awaited<ReturnType<typeof call>>,
  status: number,
  code: string,
): void => {
  if (response.status !== status) {
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(response.json)}`);
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/problem+json')) throw new Error(`content-type was ${contentType}`);
  if (response.json.code !== code)
    throw new Error(`code was ${String(response.json.code)}, expected ${code}`);
  if (response.json.status !== status) throw new Error(`body status was ${String(response.json.status)}`);
  const requestId = response.headers.get('x-request-id');
  if (!requestId || response.json.requestId !== requestId) {
    throw new Error(`requestId ${String(response.json.requestId)} does not match x-request-id ${requestId}`);
  }
};

/** Runs the operator CLI in-process against the test stack; returns its exit code and output. */
export const runAdmin = async (...args: string[]) => {
  const { runCli } = await import('../../functions/admin/cli');
  let out = '';
  let err = '';
  const code = await runCli([...args, '--data-dir', stack.dataDir], {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
};

/**
 * Asserts the refusal a hostile storage reference must get (400 `invalid_storage_reference` with the
 * field's pointer under `part`, or 404 `not_found`), naming the case when it does not.
 */
export const expectHostileRefusal = (
  response: Awaited<ReturnType<typeof call>>,
  hostile: { name: string; expect: 400 | 404 },
  part: 'body' | 'query',
): void => {
  try {
    expectProblem(
      response,
      hostile.expect,
      hostile.expect === 400 ? 'invalid_storage_reference' : 'not_found',
    );
    if (hostile.expect === 400) {
      const pointers = (response.json.errors as { pointer: string }[]).map((e) => e.pointer);
      if (pointers.length !== 1 || !new RegExp(`^/${part}/(fullPath|bucket)$`).test(pointers[0] ?? '')) {
        throw new Error(`pointers were ${JSON.stringify(pointers)}`);
      }
    }
  } catch (error) {
    throw new Error(`${hostile.name}: ${(error as Error).message}`);
  }
};

/** Creates a contact (the built-in `contacts` type) and answers its `_id`. */
export const createContact = async (headers: Record<string, string>, name = 'Ada') => {
  const res = await call('POST', '/v1/dynadata/type/contacts/create', {
    headers,
    body: { name, phoneNumbers: [{ number: '+14155550100' }] },
  });
  if (res.status !== 201) throw new Error(`contact not created: ${res.status} ${JSON.stringify(res.json)}`);
  return String(res.json._id);
};

/**
 * Resolves once a job's final move is settled from the table's stream (decision 0065): its event (`type`,
 * for `resourceId`) is listed, and with it, written in one transaction, the usage and storage bytes the move
 * added. Fails after 30 s.
 */
export const waitForSettled = async (apiKey: string, type: string, resourceId: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call('GET', `/v1/events?type=${type}&limit=100`, { headers: { 'x-api-key': apiKey } });
    const events = (res.json.events ?? []) as { data?: { id?: string } }[];
    if (events.some((e) => e.data?.id === resourceId)) return;
    if (Date.now() > deadline) throw new Error(`${type} of ${resourceId} was not raised within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
