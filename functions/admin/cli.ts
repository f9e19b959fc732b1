import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AppError } from '../shared/errors';
import { parseScopeList, SCOPES, type Scope } from '../shared/types/scopes';
import { COMPANY_USAGE, runCompanyCommand } from './company-commands';
import { DYNADATA_USAGE, runDynadataCommand } from './dynadata-commands';
import { LOG_SHIPPER_USAGE, runLogShipperCommand } from './log-shipper-commands';
import { runStorageCommand, STORAGE_USAGE } from './storage-commands';
import { selectTarget, UsageError } from './target';
import { runWebhookCommand, WEBHOOK_USAGE } from './webhook-commands';
import { InvalidWorkflowError, runWorkflowCommand, WORKFLOW_USAGE } from './workflow-commands';

/**
 * Operator CLI: `admin <area> <command> [options]`. Every command takes `--json` for machine-readable
 * output. Bad input prints a clear message and exits non-zero (2 for usage errors, 1 for refused actions).
 */
const USAGE = `usage: npm run admin -- <command> [options] [--json]

${COMPANY_USAGE}
  keys create --company ID [--name N] [--scopes a,b] [--expires-at T] [--ips a,b]   prints the key once
  keys list --company ID
  keys revoke --company ID --key-id K
  plans list
  plans put --file plan.json
  jwt mint --company ID [--scopes a,b] [--advanced] [--ips a,b] [--dur S] [--kind K]
  jwt revoke --company ID --jti J       refuse one minted token (and the tokens derived from it if the operator minted it)
  jwt keys rotate                       new signing key; the previous one still verifies (writes the
                                        public verification keys first, then the signing keys)
${DYNADATA_USAGE}
${WORKFLOW_USAGE}
${STORAGE_USAGE}
${LOG_SHIPPER_USAGE}
${WEBHOOK_USAGE}

target: the local stack in $DATA_DIR (default .data), or AWS with --table T --bucket B --region R
        [--jwt-keys-secret ARN] (for the jwt commands)
        [--jwt-public-keys-secret ARN] (for jwt keys rotate) [--rest-api-id A] (for the companies commands)
        [--schedule-group G --scheduler-role-arn R --schedule-target-arn F] (workflows with on.schedule;
        the jobs stack's WorkflowSchedules outputs)`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  company: { type: 'string' },
  'key-id': { type: 'string' },
  jti: { type: 'string' },
  scopes: { type: 'string' },
  file: { type: 'string' },
  table: { type: 'string' },
  bucket: { type: 'string' },
  region: { type: 'string' },
  'jwt-keys-secret': { type: 'string' },
  'jwt-public-keys-secret': { type: 'string' },
  'rest-api-id': { type: 'string' },
  'data-dir': { type: 'string' },
  advanced: { type: 'boolean' },
  ips: { type: 'string' },
  'expires-at': { type: 'string' },
  dur: { type: 'string' },
  kind: { type: 'string' },
  // Dynadata and messaging commands.
  description: { type: 'string' },
  functions: { type: 'string' },
  force: { type: 'boolean' },
  url: { type: 'string' },
  // Workflow commands.
  id: { type: 'string' },
  'schedule-group': { type: 'string' },
  'scheduler-role-arn': { type: 'string' },
  'schedule-target-arn': { type: 'string' },
  // Log shipper and webhook commands.
  'queue-url': { type: 'string' },
  max: { type: 'string' },
  // Storage commands.
  'page-size': { type: 'string' },
  from: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const need = (values: Values, name: 'name' | 'plan' | 'company' | 'key-id' | 'file' | 'jti'): string => {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
};

const parseScopes = (value: string | undefined): Scope[] => {
  if (value === undefined) return [...SCOPES];
  const { scopes, unknown } = parseScopeList(value);
  if (unknown.length > 0)
    throw new UsageError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope');
  return scopes;
};

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

type Output = { json: unknown; text: string };

const run = async (
  area: string,
  command: string,
  values: Values,
  positionalRest?: string,
): Promise<Output> => {
  const now = new Date();
  const key = `${area} ${command}`;
  switch (key) {
    case 'keys create': {
      const { getCompany } = await import('../shared/data/companies');
      const { issueApiKey } = await import('../shared/domain/api-keys');
      const { createKeyBodySchema } = await import('../shared/routes/key-routes');
      const companyId = need(values, 'company');
      const scopes = parseScopes(values.scopes);
      // The body `POST /v1/keys` takes and the one path it goes through, without a caller's bounds.
      const request = createKeyBodySchema().safeParse({
        name: values.name ?? 'api key',
        scopes,
        ...(values['expires-at'] === undefined ? {} : { expiresAt: values['expires-at'] }),
        ...(values.ips === undefined ? {} : { ips: values.ips.split(',').map((ip) => ip.trim()) }),
      });
      if (!request.success) {
        const problems = request.error.issues.map((i) => `  --${i.path.join('/')}: ${i.message}`).join('\n');
        throw new UsageError(`not a valid key:\n${problems}`);
      }
      if (!(await getCompany(companyId))) throw new Error(`no company ${companyId}`);
      const { key, secret } = await issueApiKey(companyId, request.data, { kind: 'operator' }, now);
      return {
        json: { ...key, keyId: key.id, key: secret },
        text: `created key ${key.id} for ${companyId} (scopes: ${scopes.join(',')})\n${secret}\nStore it now: it is not shown again.`,
      };
    }
    case 'keys list': {
      const { apiKeyPage } = await import('../shared/domain/api-keys');
      const companyId = need(values, 'company');
      const keys = [];
      let cursor: string | undefined;
      do {
        const page = await apiKeyPage(companyId, { cursor }, now);
        keys.push(...page.keys);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const lines = keys.map(
        (k) =>
          `${k.id}  ${k.hint}…  ${k.name}  ${k.status}  created ${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`,
      );
      return { json: { keys }, text: lines.join('\n') || 'no keys' };
    }
    case 'keys revoke': {
      const { revokeCompanyApiKey } = await import('../shared/domain/api-keys');
      const key = await revokeCompanyApiKey(need(values, 'company'), need(values, 'key-id'), now);
      return { json: { ...key, keyId: key.id }, text: `revoked ${key.id} at ${key.revokedAt}` };
    }
    case 'plans list': {
      const { listPlans } = await import('../shared/data/plans');
      const plans = await listPlans();
      return {
        json: { plans },
        text: plans.map((p) => `${p.id}  ${p.name}  ${p.sellable ? 'sellable' : 'not sellable'}`).join('\n'),
      };
    }
    case 'plans put': {
      const { planSchema } = await import('../shared/routes/schemas');
      const { storePlan } = await import('../shared/domain/plans');
      const file = need(values, 'file');
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      const parsed = planSchema().strict().safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `  /${i.path.join('/')}: ${i.message}`).join('\n');
        throw new UsageError(`${file} is not a valid plan:\n${problems}`);
      }
      await storePlan(parsed.data, now);
      return { json: parsed.data, text: `stored plan ${parsed.data.id}` };
    }
    case 'jwt mint': {
      const { issueToken } = await import('../shared/domain/tokens');
      const list = (v: string | undefined) =>
        v === undefined ? undefined : v.split(',').map((s) => s.trim());
      const dur = values.dur === undefined ? undefined : Number(values.dur);
      const minted = await issueToken(
        {
          companyId: need(values, 'company'),
          source: { kind: 'operator' },
          ips: list(values.ips),
          dur,
          scopes: list(values.scopes),
          advanced: values.advanced ?? false,
          kind: values.kind,
        },
        'operator',
        now,
      );
      return { json: minted, text: minted.token };
    }
    case 'jwt revoke': {
      const { revokeToken } = await import('../shared/domain/tokens');
      const revoked = await revokeToken(need(values, 'company'), need(values, 'jti'), now);
      return {
        json: revoked,
        text: `revoked token ${revoked.jti} (it would have expired at ${revoked.expiresAt})`,
      };
    }
    case 'jwt keys': {
      if (positionalRest !== 'rotate') throw new UsageError('usage: jwt keys rotate');
      const { rotateKeySet, storeKeySet, tryLoadKeySet } = await import('../shared/auth/signing-keys');
      const set = rotateKeySet(await tryLoadKeySet(), now);
      await storeKeySet(set);
      const kids = set.keys.map((k) => k.kid);
      return {
        json: { kids, signingKid: kids.at(-1) },
        text: `signing with ${kids.at(-1)}; verifying ${kids.join(', ')}`,
      };
    }
    default: {
      const company = await runCompanyCommand(key, values, now);
      if (company) return company;
      const dynadata = await runDynadataCommand(key, values, now);
      if (dynadata) return dynadata;
      const workflow = await runWorkflowCommand(key, values, now);
      if (workflow) return workflow;
      const storage = await runStorageCommand(key, values);
      if (storage) return storage;
      const logShipper = await runLogShipperCommand(key, values);
      if (logShipper) return logShipper;
      const webhooks = await runWebhookCommand(key, values);
      if (webhooks) return webhooks;
      throw new UsageError(`unknown command: ${key.trim() || '(none)'}`);
    }
  }
};

/** The stable code of a refusal only the operator CLI makes (an error with a string `code`, such as a plan
 * whose request rate passes the meter ceiling). */
const operatorCodeOf = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

export const runCli = async (argv: string[], io: CliIo, defaultDataDir = '.data'): Promise<number> => {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  const [area = '', command = '', rest] = positionals;
  try {
    selectTarget({
      table: values.table,
      bucket: values.bucket,
      region: values.region,
      jwtKeysSecret: values['jwt-keys-secret'],
      jwtPublicKeysSecret: values['jwt-public-keys-secret'],
      scheduleGroup: values['schedule-group'],
      schedulerRoleArn: values['scheduler-role-arn'],
      scheduleTargetArn: values['schedule-target-arn'],
      webhookQueueUrl: values['queue-url']?.trim(),
      dataDir: values['data-dir'] ?? defaultDataDir,
    });
    const output = await run(area, command, values, rest);
    io.out(values.json ? JSON.stringify(output.json, null, 2) : output.text);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof AppError ? error.code : operatorCodeOf(error);
    const errors = error instanceof InvalidWorkflowError ? { errors: error.errors } : {};
    if (values.json) io.err(JSON.stringify({ error: message, ...(code ? { code } : {}), ...errors }));
    else io.err(error instanceof UsageError ? `${message}\n\n${USAGE}` : `error: ${message}`);
    return error instanceof UsageError ? 2 : 1;
  }
};
