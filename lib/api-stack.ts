import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  ContentHandling,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type MethodOptions,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { FilterPattern, LogGroup, RetentionDays, SubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { STAGE_THROTTLING } from '../functions/shared/domain/capacity';
import { DEFAULT_PLANS } from '../functions/shared/domain/plan-catalog';
import { ACCESS_LOG_FIELDS } from '../functions/shared/http/access-log';
import { buildProblem, methodNotAllowed, PROBLEM_CONTENT_TYPE } from '../functions/shared/http/problem';
import {
  apiResourcePath,
  ROUTE_GROUPS,
  ROUTES,
  type RouteGroup,
} from '../functions/shared/routes/route-table';
import { AUTHORIZER_ACCESS, type DataResources, LOG_SHIPPER_ACCESS } from './access';
import { ApiWebAcl } from './constructs/api-web-acl';
import { AppFunction } from './constructs/app-function';
import { failureQueue } from './constructs/failure-queue';
import type { MessageSchedules } from './constructs/message-delivery';
import { RequestRates } from './constructs/request-rates';
import { RouteGroupFunction } from './constructs/route-group';
import { ApiTraceSampling } from './constructs/trace-sampling';
import type { WorkflowSchedules } from './constructs/workflow-schedules';
import { addGatewayResponses } from './gateway-responses';
import { sendFailuresTo } from './grants/failure-queue';
import { publicRouteReason } from './public-routes';

export interface ApiStackProps extends StackProps {
  data: DataResources;
  /** Saving and deleting a definition over the API creates, replaces and deletes its schedule. */
  workflowSchedules?: WorkflowSchedules;
  /** The schedules of messages sent later: the groups that send messages create them, contacts cancels them. */
  messageSchedules?: MessageSchedules;
}

/**
 * The public REST API v1: a regional REST API whose `v1` stage serves the route table. Resources and methods
 * come from `ROUTES`; each method proxies to its route group's Lambda (one per group), and every route that
 * is not `public` goes through the Lambda REQUEST authorizer.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  readonly webAcl: ApiWebAcl;
  readonly authorizerFunction: AppFunction;
  readonly logShipperFunction: AppFunction;
  /** Where the shipper's failed invocations are parked (alarmed on; `admin log-shipper redrive`). */
  readonly logShipperFailures: Queue;
  readonly groups: Record<RouteGroup, RouteGroupFunction>;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    // Strong references: the data stack cannot drop an export (table, bucket, secret) this stack still uses.
    this.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
    const { data } = props;

    // One JSON line per request; the log shipper turns these lines into `log_entries`.
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.api = new RestApi(this, 'Api', {
      description: 'Public REST API v1',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Every request body reaches the functions as its exact bytes (base64), so a body that is not valid
      // UTF-8 is refused with 400 instead of reaching them with replacement characters.
      binaryMediaTypes: ['*/*'],
      // Usage plans (per-plan request rates) take their key from the authorizer, never from a request header.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // API Gateway writes access and execution logs only with the account's CloudWatch role set.
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'v1',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        tracingEnabled: true,
        throttlingRateLimit: STAGE_THROTTLING.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLING.burstLimit,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
      },
    });
    addGatewayResponses(this.api);
    this.webAcl = new ApiWebAcl(this, 'WebAcl', { stage: this.api.deploymentStage });
    new ApiTraceSampling(this, 'TraceSampling', { stage: this.api.deploymentStage });
    const rates = new RequestRates(this, 'RequestRates', { api: this.api, plans: DEFAULT_PLANS });

    // The audit trail and per-request compute time are written off the request path: a subscription on the
    // access-log group hands each batch of lines to the log shipper, which writes `log_entries` items.
    this.logShipperFunction = new AppFunction(this, 'LogShipperFunction', {
      entry: 'functions/log-shipper/index.ts',
      description: 'Public API v1, access log to log_entries and compute meter',
      access: LOG_SHIPPER_ACCESS,
      data,
      timeout: Duration.seconds(60),
    });
    new SubscriptionFilter(this, 'AccessLogsToShipper', {
      logGroup: accessLogs,
      destination: new LambdaDestination(this.logShipperFunction),
      filterPattern: FilterPattern.allEvents(),
    });
    // The subscription invokes the shipper asynchronously: Lambda retries a failed invocation twice and a
    // throttled one for up to six hours, then parks it, with its batch, on the failure queue instead of
    // dropping it (`docs/decisions/0020-log-shipper-failure-destination.md`).
    this.logShipperFailures = failureQueue(this, 'LogShipperFailures');
    sendFailuresTo(this.logShipperFunction, this.logShipperFailures, {
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
    });

    this.authorizerFunction = new AppFunction(this, 'AuthorizerFunction', {
      entry: 'functions/authorizer/index.ts',
      description: 'Public API v1, Lambda REQUEST authorizer',
      access: AUTHORIZER_ACCESS,
      data,
      environment: { USAGE_PLAN_KEYS: JSON.stringify(rates.usagePlanKeys) },
      timeout: Duration.seconds(5),
    });
    // Gateway caching is off: any of three headers may carry the credential, and an identity source the
    // request lacks would make API Gateway answer 401 without calling the authorizer.
    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: this.authorizerFunction,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // Without identity sources CDK writes `IdentitySource: ""`; leave the property out, as CloudFormation
    // documents for a REQUEST authorizer without caching.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    this.groups = Object.fromEntries(
      ROUTE_GROUPS.map((group) => [group, new RouteGroupFunction(this, `Group-${group}`, { group, data })]),
    ) as Record<RouteGroup, RouteGroupFunction>;
    if (props.workflowSchedules) {
      const saver = this.groups.workflows.function;
      props.workflowSchedules.grantManagement(saver);
      for (const [name, value] of Object.entries(props.workflowSchedules.environment()))
        saver.addEnvironment(name, value);
    }
    if (props.messageSchedules) {
      // Cancel (`cancel_message`, `actions/messages/cancel`) deletes a schedule: the contacts group, MCP, workflows.
      for (const group of ['contacts', 'mcp', 'workflows'] as const)
        props.messageSchedules.grantScheduling(this.groups[group].function, { cancel: true });
      props.messageSchedules.grantScheduling(this.groups.dynadata.function);
    }

    const protectedMethod: MethodOptions = {
      authorizationType: AuthorizationType.CUSTOM,
      authorizer,
      // The authorizer's usage key selects the usage plan that throttles the company (`request-rates.ts`).
      apiKeyRequired: true,
    };
    for (const route of ROUTES) {
      const isPublic = route.scope === 'public';
      const method = this.api.root
        .resourceForPath(apiResourcePath(route.path))
        .addMethod(route.method, this.groups[route.group].integration, {
          ...(isPublic ? { authorizationType: AuthorizationType.NONE } : protectedMethod),
          operationName: route.operationId,
        });
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-COG4',
        reason: isPublic
          ? 'A public route of the spec: it takes no credential at all.'
          : 'Callers present API keys or the service’s own JWTs, checked by the Lambda REQUEST authorizer; ' +
            'there is no Cognito user pool.',
      });
      if (isPublic) {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: publicRouteReason(route),
        });
      }
    }

    this.addMethodNotAllowed();
    this.acknowledgeApiFindings();
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the v1 stage' });
    new CfnOutput(this, 'RestApiId', {
      value: this.api.restApiId,
      description: 'The REST API whose usage plans hold the companies usage keys (admin --rest-api-id)',
    });
    new CfnOutput(this, 'LogShipperFailureQueueUrl', {
      value: this.logShipperFailures.queueUrl,
      description: 'Failed log shipper invocations, parked (admin log-shipper redrive --queue-url)',
    });
  }

  /**
   * Each resource answers a method it lacks with 405 `method_not_allowed` and `Allow` (otherwise API Gateway
   * answers its own 403 "Missing Authentication Token"): an `ANY` method on a mock integration, which reaches
   * no function and needs no credential. `HEAD` and `OPTIONS` are among those methods.
   */
  private addMethodNotAllowed(): void {
    const methodsByResource = new Map<string, string[]>();
    for (const route of ROUTES) {
      const resource = apiResourcePath(route.path);
      methodsByResource.set(resource, [...(methodsByResource.get(resource) ?? []), route.method]);
    }
    for (const [resource, methods] of methodsByResource) {
      const allow = methods.join(', ');
      const problem = buildProblem(methodNotAllowed('$context.httpMethod', methods), '$context.requestId');
      const method = this.api.root.resourceForPath(resource).addMethod(
        'ANY',
        new MockIntegration({
          passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
          contentHandling: ContentHandling.CONVERT_TO_TEXT,
          requestTemplates: { 'application/json': '{"statusCode": 405}' },
          integrationResponses: [
            {
              statusCode: '405',
              responseParameters: {
                'method.response.header.Allow': `'${allow}'`,
                'method.response.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
                'method.response.header.x-request-id': 'context.requestId',
              },
              responseTemplates: { 'application/json': JSON.stringify(problem) },
            },
          ],
        }),
        {
          authorizationType: AuthorizationType.NONE,
          operationName: `methodNotAllowed${resource.replaceAll(/[^A-Za-z0-9]/g, '_')}`,
          methodResponses: [
            {
              statusCode: '405',
              responseParameters: {
                'method.response.header.Allow': true,
                'method.response.header.Content-Type': true,
                'method.response.header.x-request-id': true,
              },
            },
          ],
        },
      );
      Validations.of(method).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason: `ANY ${resource} only answers 405 with Allow from a mock integration; it reaches no function.`,
        },
        {
          id: 'AwsSolutions-COG4',
          reason: 'A mock integration answering 405: there is nothing to authorize.',
        },
      );
    }
  }

  private acknowledgeApiFindings(): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated in each route group Lambda against the route table’s zod schemas (path, ' +
        'query, body), which answer 400 validation_failed problem+json with field pointers; a gateway ' +
        'validator would duplicate those schemas as models and answer in another shape.',
    });
    const cloudWatchRole = this.api.node.findChild('CloudWatchRole');
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-wide role API Gateway needs to write access and execution logs; the AWS managed ' +
        'policy is the one API Gateway documents for it and is maintained by AWS.',
    });
  }
}
