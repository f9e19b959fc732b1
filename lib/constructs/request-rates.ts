import { createHash } from 'node:crypto';
import { ApiKey, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { type Plan, RATE_OF_PLANS_WITHOUT_ONE } from '../../functions/shared/types/plans';

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
 * allowance is metered by the API itself). Each usage plan has one API key. API Gateway throttles per API
 * key, so a key shared by a plan's companies bounds what they send together; a key per company (created with
 * the company, moved when its plan changes) gives each company its own bucket and the authorizer already
 * returns whatever key it is given for the plan (`USAGE_PLAN_KEYS`).
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
