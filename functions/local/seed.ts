import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../shared/data/api-keys';
import { getPlan, putPlan } from '../shared/data/plans';
import { createCompanyWithPlan } from '../shared/domain/company-admin';
import type { Plan } from '../shared/types/plans';
import { SCOPES } from '../shared/types/scopes';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** The starting plan catalog of a local stack. Operators replace it with `admin plans put`. */
export const DEFAULT_PLANS: Plan[] = [
  {
    id: 'free',
    name: 'Free',
    description: 'For trying the API.',
    sellable: true,
    price: { amount: 0, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 10_000,
      storageBytes: 1 * GIB,
      maxObjectBytes: 25 * MIB,
      databaseBytes: 100 * MIB,
      transcodeSecondsPerMonth: 600,
      transcodeQueueCap: 2,
      transcodeMaxSourceBytes: 100 * MIB,
      transcodeMaxDurationSeconds: 600,
      transcriptionSecondsPerMonth: 600,
      transcriptionQueueCap: 2,
      transcriptionMaxSourceBytes: 100 * MIB,
      transcriptionMaxDurationSeconds: 600,
      speechCharactersPerMonth: 20_000,
      workflowRunsPerMonth: 100,
      logRetentionDays: 7,
      webhookEndpoints: 3,
    },
  },
  {
    id: 'starter',
    name: 'Starter',
    description: 'For small teams in production.',
    sellable: true,
    price: { amount: 4900, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 500_000,
      storageBytes: 50 * GIB,
      maxObjectBytes: 500 * MIB,
      databaseBytes: 5 * GIB,
      transcodeSecondsPerMonth: 36_000,
      transcodeQueueCap: 10,
      transcodeMaxSourceBytes: 2 * GIB,
      transcodeMaxDurationSeconds: 4 * 3600,
      transcriptionSecondsPerMonth: 36_000,
      transcriptionQueueCap: 10,
      transcriptionMaxSourceBytes: 2 * GIB,
      transcriptionMaxDurationSeconds: 4 * 3600,
      speechCharactersPerMonth: 1_000_000,
      workflowRunsPerMonth: 10_000,
      logRetentionDays: 30,
      webhookEndpoints: 10,
    },
  },
  {
    id: 'legacy-pro',
    name: 'Pro (legacy)',
    description: 'No longer on sale; existing subscriptions continue.',
    sellable: false,
    price: { amount: 19900, currency: 'USD', interval: 'month' },
    limits: {
      apiRequestsPerMonth: 5_000_000,
      storageBytes: 500 * GIB,
      maxObjectBytes: 5 * GIB,
      databaseBytes: 50 * GIB,
      transcodeSecondsPerMonth: 360_000,
      transcodeQueueCap: 50,
      transcodeMaxSourceBytes: 5 * GIB,
      transcodeMaxDurationSeconds: 12 * 3600,
      transcriptionSecondsPerMonth: 360_000,
      transcriptionQueueCap: 50,
      transcriptionMaxSourceBytes: 5 * GIB,
      transcriptionMaxDurationSeconds: 4 * 3600,
      speechCharactersPerMonth: 10_000_000,
      workflowRunsPerMonth: 100_000,
      logRetentionDays: 90,
      webhookEndpoints: 50,
    },
  },
];

export interface DemoTenant {
  companyId: string;
  apiKey: string;
  created: boolean;
}

/**
 * Seeds missing plans and, on first start only, a demo company with one API key written to
 * `<dataDir>/demo-api-key`. Later starts leave existing data (and operator edits) alone.
 */
export const seedLocalData = async (dataDir: string, now: Date): Promise<DemoTenant> => {
  for (const plan of DEFAULT_PLANS) {
    if (!(await getPlan(plan.id))) await putPlan(plan, now);
  }
  const keyFile = join(dataDir, 'demo-api-key');
  const companyFile = join(dataDir, 'demo-company-id');
  if (existsSync(keyFile) && existsSync(companyFile)) {
    return {
      companyId: readFileSync(companyFile, 'utf8').trim(),
      apiKey: readFileSync(keyFile, 'utf8').trim(),
      created: false,
    };
  }
  const company = await createCompanyWithPlan({ name: 'Demo Company', planId: 'starter' }, now);
  const { key } = await createApiKey(company.companyId, { name: 'demo', scopes: [...SCOPES] }, now);
  writeFileSync(companyFile, `${company.companyId}\n`);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return { companyId: company.companyId, apiKey: key, created: true };
};
