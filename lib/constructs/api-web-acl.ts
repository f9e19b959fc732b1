import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnStage, Stage } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { WAF_RATE_LIMITS, WAF_RATE_WINDOW_SECONDS } from '../../functions/shared/domain/capacity';
import { ERROR_CATALOG } from '../../functions/shared/errors';
import { problemType } from '../../functions/shared/http/problem';
import { CREDENTIAL_HEADERS } from '../../functions/shared/types/credential-headers';

/** What a rate-limited client is told to wait before retrying (seconds). */
export const WAF_RETRY_AFTER_SECONDS = 60;

/**
 * Rules of `AWSManagedRulesCommonRuleSet` that only count (metrics and logs) instead of blocking, and why:
 * each would refuse requests this API serves by design.
 */
export const COMMON_RULE_SET_COUNT_ONLY: Record<string, string> = {
  SizeRestrictions_BODY:
    'blocks bodies over 8 KB; the API takes JSON bodies up to 1 MiB and binary request bodies (every media ' +
    'type is binary to the gateway), whose size the functions and API Gateway limit',
  CrossSiteScripting_BODY:
    'tenant documents and message texts are stored and returned as JSON data, never rendered as HTML by the ' +
    'platform, and may legitimately contain markup',
  GenericRFI_BODY:
    'webhook addresses and document fields may legitimately hold URLs with IP addresses; webhook targets are ' +
    'classified and refused by the API itself',
  NoUserAgent_HEADER: 'server-to-server API clients and devices often send no User-Agent',
};

const THROTTLED_BODY = 'throttled';

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

const throttledAction: CfnWebACL.RuleActionProperty = {
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: THROTTLED_BODY,
      responseHeaders: [{ name: 'Retry-After', value: String(WAF_RETRY_AFTER_SECONDS) }],
    },
  },
};

const managedRuleGroup = (
  name: string,
  priority: number,
  countOnly: readonly string[] = [],
): CfnWebACL.RuleProperty => ({
  name,
  priority,
  overrideAction: { none: {} },
  statement: {
    managedRuleGroupStatement: {
      vendorName: 'AWS',
      name,
      ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
    },
  },
  visibilityConfig: visibility(name),
});

const hasHeader = (name: string): CfnWebACL.StatementProperty => ({
  sizeConstraintStatement: {
    fieldToMatch: { singleHeader: { Name: name } },
    comparisonOperator: 'GT',
    size: 0,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

/**
 * One rule per credential header (`CREDENTIAL_HEADERS`, the authorizer's own list): a rate-based rule with several custom keys counts only requests that carry
 * all of them, and a request carries exactly one credential header, so each header has a rule of its own.
 */
const perCredentialRules = (firstPriority: number): CfnWebACL.RuleProperty[] =>
  CREDENTIAL_HEADERS.map((header, index) => {
    const name = `RatePerCredential-${header}`;
    return {
      name,
      priority: firstPriority + index,
      action: throttledAction,
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'CUSTOM_KEYS',
          customKeys: [{ header: { name: header, textTransformations: [{ priority: 0, type: 'NONE' }] } }],
          limit: WAF_RATE_LIMITS.perCredential,
          evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
        },
      },
      visibilityConfig: visibility(name),
    };
  });

export interface ApiWebAclProps {
  /** The stage the web ACL protects. */
  stage: Stage;
}

/**
 * The AWS WAF web ACL of the API stage (REGIONAL): AWS managed rules for common exploits and known bad
 * inputs, then rate-based rules per source IP, per source IP without a credential, and per credential header
 * value: backstops against floods above the highest rate a plan may sell, with room (`WAF_RATE_LIMITS`, in
 * requests per `WAF_RATE_WINDOW_SECONDS`, from `functions/shared/domain/capacity.ts`; WAF re-counts about
 * every 10 s and blocks a key while it is over its limit). Rate-limited requests get 429 with `Retry-After`
 * and a problem body; other blocks reach clients as API Gateway's `WAF_FILTERED` response (403 `forbidden`). Every rule publishes CloudWatch metrics and sampled
 * requests, and blocked and counted requests are logged (credential headers redacted) for three months.
 */
export class ApiWebAcl extends Construct {
  readonly webAcl: CfnWebACL;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const throttled = ERROR_CATALOG.throttled;
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Public API v1: managed rule groups and per-IP and per-credential rate limits',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PublicApiV1WebAcl'),
      customResponseBodies: {
        [THROTTLED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            type: problemType('throttled'),
            title: throttled.title,
            status: throttled.status,
            code: 'throttled',
            detail: 'Too many requests from this client; retry later.',
          }),
        },
      },
      rules: [
        managedRuleGroup('AWSManagedRulesKnownBadInputsRuleSet', 0),
        managedRuleGroup('AWSManagedRulesCommonRuleSet', 1, Object.keys(COMMON_RULE_SET_COUNT_ONLY)),
        {
          name: 'RatePerIp',
          priority: 10,
          action: throttledAction,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: WAF_RATE_LIMITS.perIp,
              evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
            },
          },
          visibilityConfig: visibility('RatePerIp'),
        },
        {
          name: 'RatePerIpWithoutCredential',
          priority: 11,
          action: throttledAction,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: WAF_RATE_LIMITS.anonymousPerIp,
              evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
              // `GT 0` holds for neither a missing nor an empty header, so this counts requests without one.
              scopeDownStatement: {
                notStatement: {
                  statement: { orStatement: { statements: CREDENTIAL_HEADERS.map(hasHeader) } },
                },
              },
            },
          },
          visibilityConfig: visibility('RatePerIpWithoutCredential'),
        },
        ...perCredentialRules(20),
      ],
    });

    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    }).addDependency(props.stage.node.defaultChild as CfnStage);

    // WAF writes to a log group whose name starts with `aws-waf-logs-`, named by ARN without the `:*` suffix.
    const logGroupName = `aws-waf-logs-${stack.stackName}`;
    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName,
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const logging = new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [
        stack.formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: CREDENTIAL_HEADERS.map((name) => ({ singleHeader: { Name: name } })),
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
    });
    logging.node.addDependency(this.logGroup);
  }
}
