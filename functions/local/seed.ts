import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../shared/data/api-keys';
import { getPlan, putPlan } from '../shared/data/plans';
import { createCompanyWithPlan } from '../shared/domain/company-admin';
import { DEFAULT_PLANS } from '../shared/domain/plan-catalog';
import { SCOPES } from '../shared/types/scopes';
import { writeFileAtomically } from './state-file';

export { DEFAULT_PLANS };

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
  writeFileAtomically(companyFile, `${company.companyId}\n`);
  writeFileAtomically(keyFile, `${key}\n`, 0o600);
  return { companyId: company.companyId, apiKey: key, created: true };
};
