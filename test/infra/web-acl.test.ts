import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAF_RATE_LIMITS } from '../../functions/shared/domain/capacity';
import { CREDENTIAL_HEADERS } from '../../functions/shared/types/credential-headers';
import { COMMON_RULE_SET_COUNT_ONLY, WAF_RETRY_AFTER_SECONDS } from '../../lib/constructs/api-web-acl';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

// The web ACL does not depend on the bundles.
let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp({ bundling: false });
});
afterAll(() => synth?.cleanup());

interface Rule {
  Name: string;
  Priority: number;
  Action?: { Block?: { CustomResponse?: { ResponseCode: number; ResponseHeaders?: unknown[] } } };
  OverrideAction?: unknown;
  Statement: Record<string, Record<string, unknown>>;
  VisibilityConfig: { CloudWatchMetricsEnabled: boolean; SampledRequestsEnabled: boolean };
}

const only = <T>(record: Record<string, T>): T => {
  const values = Object.values(record);
  expect(values).toHaveLength(1);
  return values[0] as T;
};
const webAcl = () => only(resourcesOfType(synth.apiTemplate, 'AWS::WAFv2::WebACL'));
const rules = () => webAcl().Properties.Rules as Rule[];
const rule = (name: string) => {
  const found = rules().find((r) => r.Name === name);
  if (!found) throw new Error(`no rule ${name}`);
  return found;
};

describe('web ACL of the API stage', () => {
  it('is a REGIONAL web ACL that allows by default, associated with the v1 stage', () => {
    expect(webAcl().Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const association = only(resourcesOfType(synth.apiTemplate, 'AWS::WAFv2::WebACLAssociation'));
    const stageId = logicalIdOf(synth.api.api.deploymentStage);
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`"${stageId}"`);
    expect(association.Properties.WebACLArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(synth.api.webAcl.webAcl), 'Arn'],
    });
  });

  it('runs the AWS managed rule groups for known bad inputs and common exploits', () => {
    const known = rule('AWSManagedRulesKnownBadInputsRuleSet');
    expect(known.Statement.ManagedRuleGroupStatement).toMatchObject({ VendorName: 'AWS' });
    expect(known.Statement.ManagedRuleGroupStatement?.RuleActionOverrides ?? []).toEqual([]);
    expect(known.OverrideAction).toEqual({ None: {} });
    const common = rule('AWSManagedRulesCommonRuleSet');
    expect(common.OverrideAction).toEqual({ None: {} });
    const overrides = common.Statement.ManagedRuleGroupStatement?.RuleActionOverrides as {
      Name: string;
      ActionToUse: unknown;
    }[];
    expect(overrides.map((o) => o.Name).sort()).toEqual(Object.keys(COMMON_RULE_SET_COUNT_ONLY).sort());
    for (const override of overrides) expect(override.ActionToUse).toEqual({ Count: {} });
    // A 1 MiB JSON body or a binary upload must not be blocked by the 8 KB body rule.
    expect(overrides.map((o) => o.Name)).toContain('SizeRestrictions_BODY');
  });

  it('limits the rate per source IP, per source IP without a credential, and per credential header', () => {
    expect(rule('RatePerIp').Statement.RateBasedStatement).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: WAF_RATE_LIMITS.perIp,
    });
    const anonymous = rule('RatePerIpWithoutCredential').Statement.RateBasedStatement;
    expect(anonymous).toMatchObject({ AggregateKeyType: 'IP', Limit: WAF_RATE_LIMITS.anonymousPerIp });
    const headers = JSON.stringify(anonymous?.ScopeDownStatement);
    expect(headers).toContain('"NotStatement"');
    for (const header of CREDENTIAL_HEADERS) expect(headers).toContain(`"Name":"${header}"`);
    expect(CREDENTIAL_HEADERS).toEqual(['x-jwt-token', 'x-api-key', 'x-auth-token', 'authorization']);
    for (const header of CREDENTIAL_HEADERS) {
      expect(rule(`RatePerCredential-${header}`).Statement.RateBasedStatement).toMatchObject({
        AggregateKeyType: 'CUSTOM_KEYS',
        CustomKeys: [{ Header: { Name: header, TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
        Limit: WAF_RATE_LIMITS.perCredential,
      });
    }
    expect(WAF_RATE_LIMITS.anonymousPerIp).toBeLessThan(WAF_RATE_LIMITS.perCredential);
    expect(WAF_RATE_LIMITS.perCredential).toBeLessThanOrEqual(WAF_RATE_LIMITS.perIp);
  });

  it('answers a rate-limited request 429 throttled with Retry-After', () => {
    const rateRules = rules().filter((r) => r.Statement.RateBasedStatement);
    expect(rateRules).toHaveLength(2 + CREDENTIAL_HEADERS.length);
    for (const r of rateRules) {
      expect(r.Action?.Block?.CustomResponse).toMatchObject({
        ResponseCode: 429,
        ResponseHeaders: [{ Name: 'Retry-After', Value: String(WAF_RETRY_AFTER_SECONDS) }],
      });
    }
    const bodies = webAcl().Properties.CustomResponseBodies as Record<string, { Content: string }>;
    const body = JSON.parse(Object.values(bodies)[0]?.Content ?? '{}');
    expect(body).toMatchObject({ status: 429, code: 'throttled' });
  });

  it('publishes metrics and sampled requests for every rule, and logs blocked and counted requests', () => {
    for (const r of rules()) {
      expect(r.VisibilityConfig, r.Name).toMatchObject({
        CloudWatchMetricsEnabled: true,
        SampledRequestsEnabled: true,
      });
    }
    const logging = only(resourcesOfType(synth.apiTemplate, 'AWS::WAFv2::LoggingConfiguration'));
    expect(JSON.stringify(logging.Properties.LogDestinationConfigs)).toContain('log-group:aws-waf-logs-');
    expect(JSON.stringify(logging.Properties.LogDestinationConfigs)).not.toContain(':*');
    expect(logging.Properties.RedactedFields).toEqual(
      CREDENTIAL_HEADERS.map((name) => ({ SingleHeader: { Name: name } })),
    );
    // Spelled out: a header dropped from the shared list would otherwise leave this test green.
    const redacted = (logging.Properties.RedactedFields as { SingleHeader: { Name: string } }[]).map(
      (field) => field.SingleHeader.Name,
    );
    expect(redacted.sort()).toEqual(['authorization', 'x-api-key', 'x-auth-token', 'x-jwt-token']);
    expect(JSON.stringify(logging.Properties.LoggingFilter)).toContain('"DefaultBehavior":"DROP"');
  });

  it('gives the priorities of the rules in a strict order, managed groups first', () => {
    const priorities = rules().map((r) => r.Priority);
    expect(new Set(priorities).size).toBe(priorities.length);
    const first = [...rules()].sort((a, b) => a.Priority - b.Priority).slice(0, 2);
    expect(first.map((r) => r.Name)).toEqual([
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesCommonRuleSet',
    ]);
  });
});
