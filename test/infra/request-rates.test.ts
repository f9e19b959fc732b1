import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import { apiResourcePath, ROUTES, routeKey } from '../../functions/shared/routes/route-table';
import { RATE_OF_PLANS_WITHOUT_ONE, USAGE_PLAN_TAG } from '../../functions/shared/types/plans';
import { methods, resourcesOfType } from './rest-api';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth?.cleanup());

type Props = Record<string, unknown>;
const usagePlans = () => Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::UsagePlan'));
const apiKeys = () => resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::ApiKey');
const usagePlanKeys = () =>
  Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::UsagePlanKey'));
const authorizerEnvironment = (): Record<string, unknown> => {
  const id = logicalIdOf(synth.api.authorizerFunction);
  const fn = resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function')[id];
  return ((fn?.Properties.Environment as Props | undefined)?.Variables ?? {}) as Record<string, unknown>;
};

describe('per-company request rates at the edge', () => {
  it('takes usage keys from the authorizer and requires one on every non-public method', () => {
    const [api] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::RestApi'));
    expect(api?.Properties.ApiKeySourceType).toBe('AUTHORIZER');
    for (const route of ROUTES) {
      const method = methods(synth.apiTemplate).find(
        (m) => m.key === routeKey(route.method, apiResourcePath(route.path)),
      );
      expect(method?.properties.ApiKeyRequired ?? false, route.path).toBe(route.scope !== 'public');
    }
  });

  it('has one usage plan per catalog plan, plus a default, tagged with its plan and throttled at its rate', () => {
    const expected = [
      ...DEFAULT_PLANS.map((p) => ({ rate: p.limits.requestsPerSecond, burst: p.limits.burst })),
      { rate: RATE_OF_PLANS_WITHOUT_ONE.requestsPerSecond, burst: RATE_OF_PLANS_WITHOUT_ONE.burst },
    ];
    const plans = usagePlans();
    expect(plans).toHaveLength(expected.length);
    expect(
      plans.map((p) => {
        const throttle = p.Properties.Throttle as { RateLimit: number; BurstLimit: number };
        return { rate: throttle.RateLimit, burst: throttle.BurstLimit };
      }),
    ).toEqual(expect.arrayContaining(expected));
    const tagged = plans.map(
      (p) =>
        (p.Properties.Tags as { Key: string; Value: string }[]).find((t) => t.Key === USAGE_PLAN_TAG)?.Value,
    );
    expect(tagged.sort()).toEqual([...DEFAULT_PLANS.map((p) => p.id), 'default'].sort());
    for (const plan of plans) {
      const stages = plan.Properties.ApiStages as { Stage: unknown }[];
      expect(stages).toHaveLength(1);
      expect(plan.Properties.Quota).toBeUndefined();
    }
  });

  it('gives each usage plan one API key whose value the authorizer returns for that plan', () => {
    const keys = apiKeys();
    expect(Object.keys(keys)).toHaveLength(DEFAULT_PLANS.length + 1);
    const links = usagePlanKeys();
    expect(links).toHaveLength(DEFAULT_PLANS.length + 1);
    const environment = authorizerEnvironment();
    const byPlan = JSON.parse(String(environment.USAGE_PLAN_KEYS)) as Record<string, string>;
    expect(Object.keys(byPlan).sort()).toEqual([...DEFAULT_PLANS.map((p) => p.id), 'default'].sort());
    const values = Object.values(keys).map((k) => k.Properties.Value);
    expect(values.sort()).toEqual(Object.values(byPlan).sort());
    for (const value of values) expect(String(value)).toMatch(/^[A-Za-z0-9]{20,128}$/);
    // Each key sits in exactly one usage plan.
    const keyIds = new Set(links.map((l) => JSON.stringify(l.Properties.KeyId)));
    expect(keyIds.size).toBe(links.length);
  });

  it('names the REST API whose usage plans the operator CLI places company keys in', () => {
    const [apiId] = Object.keys(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::RestApi'));
    synth.apiTemplate.hasOutput('RestApiId', { Value: { Ref: apiId } });
  });

  it('answers throttled requests 429 throttled with Retry-After', () => {
    synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
      StatusCode: '429',
      ResponseParameters: { 'gatewayresponse.header.retry-after': "'1'" },
    });
  });
});
