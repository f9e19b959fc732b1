import { createHash } from 'node:crypto';
import { Tags } from 'aws-cdk-lib';
import { ApiKey, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { type Plan, RATE_OF_PLANS_WITHOUT_ONE, USAGE_PLAN_TAG } from '../../functions/shared/types/plans';

export interface RequestRatesProps {
  api: RestApi;
  /** The plan catalog the platform ships: one usage plan each. */
  plans: readonly Plan[];
}

/**
 * Request rates at the edge. API Gateway throttles a request with the usage plan of the API key the
 * authorizer names (`ApiKeySourceType: AUTHORIZER`, `usageIdentifierKey`), before any route function runs,
 * and answers 429 `throttled` with `Retry-After` (the THROTTLED gateway response).
 *
 * One usage plan per catalog plan, throttled at the plan's `requestsPerSecond` and `burst`, plus `default`
 * (the smallest rate) for plans added later with `admin plans put`; no quota (the monthly `api_requests`
 * allowance is metered by the API itself). API Gateway throttles per API key, so each company has its own
 * key in the usage plan of its plan, created and moved by the operator CLI (`domain/company-rate-keys.ts`),
 * which finds each usage plan by its `USAGE_PLAN_TAG` tag among the usage plans of this API. Each usage plan also
 * has one key of its own, the authorizer's fallback (`USAGE_PLAN_KEYS`) for a company without a key yet: the
 * plan's companies without keys share that bucket.
 *
 * The key values are usage identifiers, not credentials: with the key source AUTHORIZER, API Gateway never
 * reads one from a request. They are derived from the construct path and the plan id, so they are stable
 * across deployments, distinct between stacks, and known at synthesis for the authorizer's environment.
 */
export class RequestRates extends Construct {
  /** Usage identifier of each plan's usage plan, by plan id, plus `default`: the authorizer's USAGE_PLAN_KEYS. */
  readonly usagePlanKeys: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: RequestRatesProps) {
    super(scope, id);
    const rates = [
      ...props.plans.map((plan) => ({ planId: plan.id, ...plan.limits })),
      { planId: 'default', ...RATE_OF_PLANS_WITHOUT_ONE },
    ];
    const keys: Record<string, string> = {};
    for (const { planId, requestsPerSecond, burst } of rates) {
      const usagePlan = props.api.addUsagePlan(`UsagePlan-${planId}`, {
        description: `Request rate of plan ${planId}: ${requestsPerSecond}/s, burst ${burst}`,
        throttle: { rateLimit: requestsPerSecond, burstLimit: burst },
        apiStages: [{ api: props.api, stage: props.api.deploymentStage }],
      });
      Tags.of(usagePlan).add(USAGE_PLAN_TAG, planId);
      const value = createHash('sha256')
        .update(`${this.node.path}/${this.node.addr}/${planId}`)
        .digest('hex');
      const key = new ApiKey(this, `UsageKey-${planId}`, {
        description: `Usage identifier of plan ${planId} (returned by the authorizer; not a credential)`,
        value: value.slice(0, 40),
      });
      usagePlan.addApiKey(key);
      keys[planId] = value.slice(0, 40);
    }
    this.usagePlanKeys = keys;
  }
}
