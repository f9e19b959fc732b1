import type { RateKeyPlacement } from '../shared/domain/company-rate-keys';
import { UsageError } from './target';

/**
 * Operator commands that create companies and move them between plans. On AWS (`--table`), with
 * `--rest-api-id` (the API stack's `RestApiId` output), each keeps the company's own API Gateway usage key in
 * the usage plan of its plan, so the edge throttles each company on its own. The local stack has no API
 * Gateway: its gateway keeps a bucket per company, and no key is made.
 */
export const COMPANY_USAGE = `  companies create --name N --plan P [--rest-api-id A]
  companies set-plan --company ID --plan P [--rest-api-id A]   on AWS --rest-api-id is required
  companies sync-rate-keys --rest-api-id A   AWS: a usage key per company, in its plan's usage plan
  companies get --company ID`;

export interface CompanyCommandValues {
  name?: string;
  plan?: string;
  company?: string;
  table?: string;
  'rest-api-id'?: string;
}

type Output = { json: unknown; text: string };

const need = (value: string | undefined, flag: string): string => {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value.trim();
};

/** The usage key store of the AWS target, or undefined (local stack, or AWS without `--rest-api-id`). */
const rateKeyStore = async (values: CompanyCommandValues, required: boolean) => {
  const restApiId = values['rest-api-id']?.trim();
  if (!values.table) {
    if (restApiId) throw new UsageError('--rest-api-id applies to AWS targets only (--table ...)');
    return undefined;
  }
  if (!restApiId) {
    if (required) throw new UsageError('on AWS, --rest-api-id (the API stack output RestApiId) is required');
    return undefined;
  }
  const { apiGatewayUsageKeys } = await import('../shared/aws/usage-plan-keys');
  return apiGatewayUsageKeys(restApiId);
};

const describePlacement = (placement: RateKeyPlacement | undefined, values: CompanyCommandValues): string => {
  if (!placement) {
    return values.table
      ? 'no usage key (no --rest-api-id): the edge throttles it with its plan until `companies sync-rate-keys`'
      : 'local stack: the gateway throttles each company itself';
  }
  const moved = placement.removedFrom.length > 0 ? `, moved from ${placement.removedFrom.join(', ')}` : '';
  return `usage key ${placement.keyId}${placement.created ? ' (new)' : ''} in usage plan ${placement.usagePlanId}${moved}`;
};

export const runCompanyCommand = async (
  key: string,
  values: CompanyCommandValues,
  now: Date,
): Promise<Output | undefined> => {
  switch (key) {
    case 'companies create': {
      const { createCompanyWithPlan } = await import('../shared/domain/company-admin');
      const input = { name: need(values.name, 'name'), planId: need(values.plan, 'plan') };
      const company = await createCompanyWithPlan(input, now, await rateKeyStore(values, false));
      return {
        json: company,
        text: `created company ${company.companyId} (${company.name}, plan ${company.planId}); ${describePlacement(company.rateKeyPlacement, values)}`,
      };
    }
    case 'companies set-plan': {
      const { changeCompanyPlan } = await import('../shared/domain/company-admin');
      const input = { companyId: need(values.company, 'company'), planId: need(values.plan, 'plan') };
      const company = await changeCompanyPlan(input, await rateKeyStore(values, true));
      return {
        json: company,
        text: `company ${company.companyId} is on plan ${company.planId}; ${describePlacement(company.rateKeyPlacement, values)}`,
      };
    }
    case 'companies sync-rate-keys': {
      const store = await rateKeyStore(values, true);
      if (!store) throw new UsageError('sync-rate-keys acts on AWS only: the local stack has no usage plans');
      const { syncCompanyRateKeys } = await import('../shared/domain/company-rate-keys');
      const placements = await syncCompanyRateKeys(store);
      const changed = placements.filter((p) => p.created || p.added || p.removedFrom.length > 0);
      return {
        json: { companies: placements.length, changed: changed.length, placements },
        text: [
          ...changed.map((p) => `${p.companyId}  ${describePlacement(p, values)}`),
          `${placements.length} companies, ${changed.length} changed`,
        ].join('\n'),
      };
    }
    case 'companies get': {
      const { getCompany } = await import('../shared/data/companies');
      const company = await getCompany(need(values.company, 'company'));
      if (!company) throw new Error(`no company ${values.company}`);
      return { json: company, text: JSON.stringify(company, null, 2) };
    }
    default:
      return undefined;
  }
};
