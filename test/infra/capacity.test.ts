import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMPANY_REQUESTS_PER_SECOND,
  PLAN_RATE_CEILING,
  PLATFORM_REQUESTS_PER_SECOND,
} from '../../functions/shared/domain/capacity';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import { resourcesOfType } from './rest-api';
import { type SynthesizedApp, synthesizeApp } from './synth';

/**
 * The limits the synthesized stacks deploy, held against the rates the plans sell: nothing stage-wide or in
 * the WAF may stop a company below the highest plan's rate (`docs/operate.md#capacity`).
 */
let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth.cleanup());

const highestPlanRate = Math.max(...DEFAULT_PLANS.map((p) => p.limits.requestsPerSecond));
const highestPlanBurst = Math.max(...DEFAULT_PLANS.map((p) => p.limits.burst));

type Props = Record<string, unknown>;
type RateRule = {
  Name: string;
  Statement: { RateBasedStatement?: Props & { ScopeDownStatement?: unknown } };
};
const only = (type: string): Props => {
  const [resource] = Object.values(resourcesOfType(synth.apiTemplate, type));
  if (!resource) throw new Error(`no ${type} in the API stack`);
  return resource.Properties as Props;
};
const stageSettings = () => only('AWS::ApiGateway::Stage').MethodSettings as Props[];
const rateRules = () =>
  (only('AWS::WAFv2::WebACL').Rules as RateRule[]).filter((r) => r.Statement.RateBasedStatement);

describe('capacity at the edge', () => {
  it('sells no plan above the plan ceiling, which is half of what one company sustains', () => {
    expect(highestPlanRate).toBeLessThanOrEqual(PLAN_RATE_CEILING.requestsPerSecond);
    expect(highestPlanBurst).toBeLessThanOrEqual(PLAN_RATE_CEILING.burst);
    expect(COMPANY_REQUESTS_PER_SECOND).toBeGreaterThanOrEqual(2 * highestPlanRate);
    expect(PLATFORM_REQUESTS_PER_SECOND).toBeGreaterThanOrEqual(COMPANY_REQUESTS_PER_SECOND);
  });

  it('throttles no method stage-wide below the platform capacity', () => {
    const settings = stageSettings();
    expect(settings.length).toBeGreaterThan(0);
    for (const s of settings) {
      expect(s.ThrottlingRateLimit as number).toBeGreaterThanOrEqual(PLATFORM_REQUESTS_PER_SECOND);
      expect(s.ThrottlingBurstLimit as number).toBeGreaterThanOrEqual(2 * PLAN_RATE_CEILING.burst);
    }
  });

  it('throttles each usage plan at its plan rate, none above the ceiling', () => {
    const plans = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::UsagePlan'));
    expect(plans.length).toBe(DEFAULT_PLANS.length + 1);
    for (const plan of plans) {
      const { RateLimit, BurstLimit } = (plan.Properties as { Throttle: Props }).Throttle;
      expect(RateLimit as number).toBeLessThanOrEqual(PLAN_RATE_CEILING.requestsPerSecond);
      expect(BurstLimit as number).toBeLessThanOrEqual(PLAN_RATE_CEILING.burst);
    }
  });

  it('sets every credentialed WAF rate rule at twice the plan ceiling or more', () => {
    const rules = rateRules();
    expect(rules.length).toBeGreaterThan(2);
    for (const { Name, Statement } of rules) {
      const { Limit, EvaluationWindowSec } = Statement.RateBasedStatement as {
        Limit: number;
        EvaluationWindowSec: number;
      };
      const perSecond = Limit / EvaluationWindowSec;
      // The rule for requests without any credential guards the public routes, which no plan sells.
      if (Name === 'RatePerIpWithoutCredential')
        expect(Statement.RateBasedStatement?.ScopeDownStatement).toBeDefined();
      else expect(perSecond, Name).toBeGreaterThanOrEqual(2 * PLAN_RATE_CEILING.requestsPerSecond);
    }
  });
});
