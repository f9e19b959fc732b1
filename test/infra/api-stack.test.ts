import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_THROTTLING } from '../../functions/shared/domain/capacity';
import { ACCESS_LOG_FIELDS } from '../../functions/shared/http/access-log';
import { DOCS_PACKAGE, DOCS_PACKAGE_FILES } from '../../functions/shared/http/docs-page';
import { GATEWAY_RESPONSES, gatewayResponseTemplate } from '../../functions/shared/http/gateway-responses';
import {
  apiResourcePath,
  ROUTE_GROUPS,
  ROUTES,
  type RouteGroup,
  routeKey,
} from '../../functions/shared/routes/route-table';
import {
  nodeOptionsOf,
  POWERTOOLS_VERSION,
  PROJECT_ROOT,
  powertoolsLayerParameter,
  SOURCE_MAPS_CONTEXT,
} from '../../lib/constructs/app-function';
import { LAZY_MODULES } from '../../lib/constructs/route-group';
import { API_TRACE_SAMPLING } from '../../lib/constructs/trace-sampling';
import { WebhookEvents } from '../../lib/constructs/webhook-events';
import { type CfnResource, methods, resourcesOfType } from './rest-api';
import { logicalIdOf, type SynthesizedApp, synthesizeApp } from './synth';

let synth: SynthesizedApp;
beforeAll(() => {
  synth = synthesizeApp();
});
afterAll(() => synth?.cleanup());

const methodByKey = (key: string) => {
  const found = methods(synth.apiTemplate).find((m) => m.key === key);
  if (!found) throw new Error(`no method ${key}`);
  return found;
};
const authorizerRef = () => ({ Ref: logicalIdOf(synth.api.node.findChild('Authorizer')) });
const functions = () => resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function');
const getAttArn = (logicalId: string) => JSON.stringify({ 'Fn::GetAtt': [logicalId, 'Arn'] });

describe('REST API built from the route table', () => {
  it('has exactly the route table’s (method, resource path) pairs, plus ANY on each of their resources', () => {
    const expected = ROUTES.map((r) => routeKey(r.method, apiResourcePath(r.path))).sort();
    expect(new Set(expected).size).toBe(expected.length);
    const all = methods(synth.apiTemplate).map((m) => m.key);
    expect(all.filter((key) => !key.startsWith('ANY ')).sort()).toEqual(expected);
    const resources = [...new Set(ROUTES.map((r) => apiResourcePath(r.path)))].sort();
    expect(all.filter((key) => key.startsWith('ANY ')).sort()).toEqual(resources.map((r) => `ANY ${r}`));
  });

  it('answers a method a resource lacks with 405, Allow and problem+json from a mock integration', () => {
    for (const resource of new Set(ROUTES.map((r) => apiResourcePath(r.path)))) {
      const allow = ROUTES.filter((r) => apiResourcePath(r.path) === resource).map((r) => r.method);
      const { properties } = methodByKey(`ANY ${resource}`);
      const integration = properties.Integration as {
        Type: string;
        IntegrationResponses: {
          StatusCode: string;
          ResponseParameters: Record<string, string>;
          ResponseTemplates: Record<string, string>;
        }[];
      };
      expect(integration.Type, resource).toBe('MOCK');
      const [response] = integration.IntegrationResponses;
      expect(response?.StatusCode).toBe('405');
      expect(response?.ResponseParameters).toEqual({
        'method.response.header.Allow': `'${allow.join(', ')}'`,
        'method.response.header.Content-Type': "'application/problem+json'",
        'method.response.header.x-request-id': 'context.requestId',
      });
      const body = JSON.parse(response?.ResponseTemplates['application/json'] ?? '{}');
      expect(body).toMatchObject({
        status: 405,
        code: 'method_not_allowed',
        requestId: '$context.requestId',
      });
      expect(body.allow).toEqual(allow);
    }
  });

  it('hands every request body to the functions as bytes (binary media types */*)', () => {
    const [api] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::RestApi'));
    expect(api?.Properties.BinaryMediaTypes).toEqual(['*/*']);
  });

  it('leaves compression to the functions (no minimumCompressionSize), as the local stack does', () => {
    // The handlers code large answers themselves, with an ETag per coding (decision 0045): a gateway that
    // compressed after them would keep one strong tag over two representations, on AWS only.
    const [api] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::RestApi'));
    expect(api?.Properties.MinimumCompressionSize).toBeUndefined();
  });

  it('sends every non-public method through the Lambda REQUEST authorizer', () => {
    const gated = ROUTES.filter((r) => r.scope !== 'public');
    expect(gated.length).toBeGreaterThan(0);
    for (const route of gated) {
      const { properties } = methodByKey(routeKey(route.method, apiResourcePath(route.path)));
      expect(properties.AuthorizationType, route.path).toBe('CUSTOM');
      expect(properties.AuthorizerId, route.path).toEqual(authorizerRef());
    }
    expect(methodByKey('GET /self').properties).toMatchObject({
      AuthorizationType: 'CUSTOM',
      AuthorizerId: authorizerRef(),
    });
  });

  it('leaves the public routes (plans, the document, the docs page and its assets) and the 405 mocks open, and nothing else', () => {
    const open = methods(synth.apiTemplate).filter(
      (m) => m.properties.AuthorizationType === 'NONE' && !m.key.startsWith('ANY '),
    );
    expect(open.map((m) => m.key).sort()).toEqual([
      'GET /docs',
      'GET /docs/assets/{asset}',
      'GET /openapi.json',
      'GET /public/plans',
    ]);
    for (const method of open) expect(method.properties.AuthorizerId).toBeUndefined();
  });

  it('proxies each method to the function of its route group', () => {
    for (const route of ROUTES) {
      const { properties } = methodByKey(routeKey(route.method, apiResourcePath(route.path)));
      const integration = properties.Integration as Record<string, unknown>;
      expect(integration.Type).toBe('AWS_PROXY');
      expect(integration.IntegrationHttpMethod).toBe('POST');
      const groupFunction = logicalIdOf(synth.api.groups[route.group].function);
      expect(JSON.stringify(integration.Uri), route.path).toContain(getAttArn(groupFunction));
    }
  });

  it('names each method after its operationId', () => {
    for (const route of ROUTES) {
      const { properties } = methodByKey(routeKey(route.method, apiResourcePath(route.path)));
      expect(properties.OperationName).toBe(route.operationId);
    }
  });

  it('serves a regional endpoint', () => {
    synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });
});

describe('authorizer', () => {
  it('is a REQUEST authorizer on the authorizer function with gateway caching off', () => {
    synth.apiTemplate.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    const [authorizer] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::Authorizer'));
    expect(authorizer?.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0 });
    // No identity source: a request without one must still reach the authorizer.
    expect(authorizer?.Properties.IdentitySource).toBeUndefined();
    expect(JSON.stringify(authorizer?.Properties.AuthorizerUri)).toContain(
      getAttArn(logicalIdOf(synth.api.authorizerFunction)),
    );
  });
});

describe('stage v1', () => {
  it('writes one JSON access log line per request with the shared fields', () => {
    const [stage] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::Stage'));
    const accessLog = stage?.Properties.AccessLogSetting as { DestinationArn: unknown; Format: string };
    expect(stage?.Properties.StageName).toBe('v1');
    expect(JSON.parse(accessLog.Format)).toEqual(ACCESS_LOG_FIELDS);
    expect(accessLog.DestinationArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(synth.api.node.findChild('AccessLogs')), 'Arn'],
    });
  });

  it('traces with X-Ray, logs errors, emits metrics and throttles every method by default', () => {
    synth.apiTemplate.resourceCountIs('AWS::ApiGateway::Stage', 1);
    synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
      TracingEnabled: true,
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
          ThrottlingRateLimit: STAGE_THROTTLING.rateLimit,
          ThrottlingBurstLimit: STAGE_THROTTLING.burstLimit,
        },
      ],
    });
  });

  it("samples the stage's traces by a rule of its own, matched by the stage's ARN, at the bench's rate", () => {
    const rules = Object.values(
      resourcesOfType(synth.apiTemplate, 'AWS::XRay::SamplingRule'),
    ) as CfnResource[];
    expect(rules).toHaveLength(1);
    const rule = rules[0]?.Properties.SamplingRule as Record<string, unknown>;
    const stageId = Object.keys(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::Stage'))[0];
    expect(rule).toMatchObject({
      FixedRate: API_TRACE_SAMPLING.fixedRate,
      ReservoirSize: API_TRACE_SAMPLING.reservoirPerSecond,
      ServiceType: 'AWS::ApiGateway::Stage',
      ServiceName: '*',
      Version: 1,
    });
    expect((rule.RuleName as string).length).toBeLessThanOrEqual(32);
    // The stage's ARN, built from the API and the stage: no other service of the account matches it.
    expect(JSON.stringify(rule.ResourceARN)).toContain(stageId);
  });

  it('sets the account CloudWatch role that API Gateway logging needs', () => {
    synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::Account', {
      CloudWatchRoleArn: Match.anyValue(),
    });
  });
});

describe('gateway responses', () => {
  const responses = () =>
    Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::GatewayResponse'));

  it('covers authorizer refusals, unknown routes, throttling and the 4XX/5XX fallbacks', () => {
    const types = responses().map((r) => r.Properties.ResponseType);
    for (const type of [
      'UNAUTHORIZED',
      'ACCESS_DENIED',
      'MISSING_AUTHENTICATION_TOKEN',
      'THROTTLED',
      'DEFAULT_4XX',
      'DEFAULT_5XX',
    ]) {
      expect(types).toContain(type);
    }
    expect(types.sort()).toEqual(GATEWAY_RESPONSES.map((d) => d.type).sort());
  });

  it('answers in problem+json with the request id in body and header', () => {
    for (const definition of GATEWAY_RESPONSES) {
      synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: definition.type,
        ResponseParameters: {
          'gatewayresponse.header.content-type': "'application/problem+json'",
          'gatewayresponse.header.x-request-id': 'context.requestId',
        },
        ResponseTemplates: { 'application/json': gatewayResponseTemplate(definition) },
      });
    }
  });

  it('sets the status of each specific type and leaves the fallbacks’ statuses alone', () => {
    for (const definition of GATEWAY_RESPONSES) {
      const fallback = definition.type === 'DEFAULT_4XX' || definition.type === 'DEFAULT_5XX';
      synth.apiTemplate.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: definition.type,
        StatusCode: fallback ? Match.absent() : String(definition.statusCode),
      });
    }
  });
});

describe('functions', () => {
  it('deploys one function per route group plus the authorizer and the log shipper, and no other', () => {
    const expected = [
      ...ROUTE_GROUPS.map((group) => logicalIdOf(synth.api.groups[group].function)),
      logicalIdOf(synth.api.authorizerFunction),
      logicalIdOf(synth.api.logShipperFunction),
    ].sort();
    expect(Object.keys(functions()).sort()).toEqual(expected);
    expect(expected).toHaveLength(ROUTE_GROUPS.length + 2);
  });

  it('feeds every access-log line of the stage to the log shipper', () => {
    const [stage] = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::ApiGateway::Stage'));
    if (!stage) throw new Error('no stage');
    const setting = stage.Properties.AccessLogSetting as { DestinationArn: { 'Fn::GetAtt': string[] } };
    const accessLogGroup = setting.DestinationArn['Fn::GetAtt'][0];
    synth.apiTemplate.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: { Ref: accessLogGroup },
      FilterPattern: '',
      DestinationArn: { 'Fn::GetAtt': [logicalIdOf(synth.api.logShipperFunction), 'Arn'] },
    });
  });

  it('runs every function on nodejs22.x, arm64, with active tracing and no source-mapped stacks by default', () => {
    for (const [logicalId, fn] of Object.entries(functions())) {
      expect(fn.Properties, logicalId).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        MemorySize: 512,
      });
      // Node would read the bundle's source map on every cold start: only `-c sourceMaps=true` asks for it.
      expect(JSON.stringify(fn.Properties.Environment ?? {}), logicalId).not.toContain('NODE_OPTIONS');
      // Behind API Gateway (29 s integration limit); the log shipper is fed by CloudWatch Logs instead.
      if (logicalId !== logicalIdOf(synth.api.logShipperFunction)) {
        expect(fn.Properties.Timeout as number).toBeLessThanOrEqual(29);
      }
    }
  });

  it('turns source-mapped stack traces on only when the sourceMaps context is true', () => {
    const optionsWith = (context: Record<string, unknown>) => nodeOptionsOf(new App({ context }));
    expect(optionsWith({})).toEqual({});
    expect(optionsWith({ [SOURCE_MAPS_CONTEXT]: 'false' })).toEqual({});
    expect(optionsWith({ [SOURCE_MAPS_CONTEXT]: 'true' })).toEqual({ NODE_OPTIONS: '--enable-source-maps' });
    expect(optionsWith({ [SOURCE_MAPS_CONTEXT]: true })).toEqual({ NODE_OPTIONS: '--enable-source-maps' });
  });

  it('tells every function where the table and the bucket are', () => {
    for (const [logicalId, fn] of Object.entries(functions())) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.TABLE_NAME, logicalId).toBeDefined();
      expect(variables.BUCKET_NAME, logicalId).toBeDefined();
    }
  });

  it('never sets V1_ALLOW_LOG_ENTRY_WRITES on any function', () => {
    for (const fn of Object.values(functions())) {
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('V1_ALLOW_LOG_ENTRY_WRITES');
    }
  });

  it('gives every function a log group of its own, kept for a month', () => {
    const logGroups = resourcesOfType(synth.apiTemplate, 'AWS::Logs::LogGroup');
    const used = Object.values(functions()).map(
      (fn) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
    );
    expect(new Set(used).size).toBe(used.length);
    for (const ref of used) expect(logGroups[ref]?.Properties.RetentionInDays).toBe(30);
  });

  it('bundles each function into one minified ESM file that imports only Node, the runtime SDK and Powertools', () => {
    for (const [logicalId, fn] of Object.entries(functions()) as [string, CfnResource][]) {
      const assetDirectory = join(synth.assembly.directory, String(fn.Metadata?.['aws:asset:path']));
      const group = /^Group(\w+?)Function/.exec(logicalId)?.[1] as RouteGroup | undefined;
      const lazy = (group && LAZY_MODULES[group]) ?? [];
      const tokenizer = lazy.some((m) => m.startsWith('gpt-tokenizer/'));
      const project = lazy.filter((m) => m.startsWith('#lazy/'));
      const docs = group === 'public';
      expect(readdirSync(assetDirectory).sort(), logicalId).toEqual(
        [
          'index.mjs',
          'index.mjs.map',
          ...(project.length > 0 ? ['lazy', 'package.json'] : []),
          ...(tokenizer || docs ? ['node_modules'] : []),
        ].sort(),
      );
      if (docs) {
        // The documentation page's package files are copied beside the bundle, read at run time.
        const pkg = join(assetDirectory, 'node_modules', DOCS_PACKAGE);
        expect(readdirSync(pkg).sort()).toEqual(['package.json', ...DOCS_PACKAGE_FILES].sort());
      }
      if (tokenizer) {
        // The o200k_base encoding is built beside the bundle, resolvable by its specifier, loaded on first use.
        const pkg = join(assetDirectory, 'node_modules', 'gpt-tokenizer');
        expect(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))).toEqual({
          name: 'gpt-tokenizer',
          type: 'module',
          exports: { './encoding/o200k_base': './encoding/o200k_base.mjs' },
        });
        expect(readFileSync(join(pkg, 'encoding', 'o200k_base.mjs'), 'utf8').length).toBeGreaterThan(
          1_000_000,
        );
      }
      if (project.length > 0) {
        // Project modules loaded on first use (`#lazy/*`): built beside the bundle, mapped by the asset's
        // package.json `imports` (the markdown parser, ajv), and absent from the bundle itself.
        const files = Object.fromEntries(project.map((m) => [m, `./lazy/${m.slice('#lazy/'.length)}.mjs`]));
        expect(JSON.parse(readFileSync(join(assetDirectory, 'package.json'), 'utf8'))).toEqual({
          imports: files,
        });
        for (const file of Object.values(files))
          expect(readFileSync(join(assetDirectory, file), 'utf8').length, file).toBeGreaterThan(10_000);
        const bundle = readFileSync(join(assetDirectory, 'index.mjs'), 'utf8');
        for (const specifier of project) expect(bundle, logicalId).toContain(`import("${specifier}")`);
        // Neither the markdown parser (a micromark token name) nor ajv (one of its messages) is in the bundle;
        // the MCP SDK validates with an ajv of its own, which the mcp group does carry.
        expect(bundle, logicalId).not.toContain('codeFencedFenceInfo');
        if (group !== 'mcp') expect(bundle, logicalId).not.toContain('must NOT have additional properties');
      }
      const code = readFileSync(join(assetDirectory, 'index.mjs'), 'utf8');
      expect(code.startsWith('import { createRequire }')).toBe(true);
      // Import statements only (each starts a statement); a string that holds import text is not one.
      const imported = [
        ...code.matchAll(/(?:^|[;}\n])import\s*(?:[^"'`;]*?from\s*)?["']([^"'./][^"']*)["']/g),
      ].map((m) => m[1] ?? '');
      expect(imported, logicalId).toContain('module');
      const builtin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);
      const provided = (name: string) =>
        name.startsWith('@aws-sdk/') ||
        name.startsWith('@smithy/') ||
        name.startsWith('@aws-lambda-powertools/');
      expect(
        imported.filter((name) => !builtin(name) && !provided(name)),
        logicalId,
      ).toEqual([]);
      // The X-Ray SDK comes with the Powertools layer, never in the bundle.
      expect(code).not.toContain('AWSXRay');
      // zod is imported by name (functions/shared/zod.ts): no locale of the full library is bundled.
      expect(code).not.toContain('Nieprawidłowe dane wejściowe');
      // Minified: long lines, not one statement per line.
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
    }
  });
});

describe('Powertools layer', () => {
  /** The bundle of a function, by its logical id in a stack's template. */
  const bundleOf = (template: Template, logicalId: string): string => {
    const fn = resourcesOfType(template, 'AWS::Lambda::Function')[logicalId];
    const asset = String(fn?.Metadata?.['aws:asset:path']);
    return readFileSync(join(synth.assembly.directory, asset, 'index.mjs'), 'utf8');
  };
  const importsOf = (code: string) =>
    [
      ...code.matchAll(/(?:^|[;}\n])import\s*(?:[^"'`;]*?from\s*)?["'](@aws-lambda-powertools\/[^"']*)["']/g),
    ].map((m) => m[1]);

  it('takes Batch and Parameters from the layer too: imported by name, none of their code bundled', () => {
    const [authorizerId] = Object.keys(functions()).filter((id) => id.startsWith('AuthorizerFunction'));
    const authorizer = bundleOf(synth.apiTemplate, String(authorizerId));
    expect(importsOf(authorizer)).toEqual(
      expect.arrayContaining([
        '@aws-lambda-powertools/logger/middleware',
        '@aws-lambda-powertools/tracer/middleware',
        '@aws-lambda-powertools/parameters/secrets',
        '@aws-lambda-powertools/parameters/base',
      ]),
    );
    expect(authorizer).not.toContain('GetParameterError');
    const events = synth.jobs.node.findAll().find((c): c is WebhookEvents => c instanceof WebhookEvents);
    if (!events) throw new Error('the jobs stack has no WebhookEvents construct');
    const dispatcher = bundleOf(Template.fromStack(synth.jobs), logicalIdOf(events.dispatcher));
    expect(importsOf(dispatcher)).toContain('@aws-lambda-powertools/batch');
    expect(dispatcher).not.toContain('FullBatchFailureError');
  });

  it('gives every function the Powertools layer of exactly the version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const versions = Object.entries(pkg.dependencies)
      .filter(([name]) => name.startsWith('@aws-lambda-powertools/'))
      .map(([, version]) => version);
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(new Set(versions)).toEqual(new Set([POWERTOOLS_VERSION]));
    const parameters = synth.apiTemplate.toJSON().Parameters as Record<
      string,
      { Type: string; Default: string }
    >;
    const [layerParameter, ...others] = Object.entries(parameters).filter(
      ([, p]) => p.Default === powertoolsLayerParameter(POWERTOOLS_VERSION),
    );
    expect(others).toEqual([]);
    expect(layerParameter?.[1].Type).toBe('AWS::SSM::Parameter::Value<String>');
    for (const [logicalId, fn] of Object.entries(functions())) {
      expect(fn.Properties.Layers, logicalId).toEqual([{ Ref: layerParameter?.[0] }]);
    }
  });
});

describe('outputs', () => {
  it('gives the API URL, the table and bucket names and the key set secret', () => {
    synth.apiTemplate.hasOutput('ApiUrl', {});
    synth.dataTemplate.hasOutput('TableName', {});
    synth.dataTemplate.hasOutput('BucketName', {});
    synth.dataTemplate.hasOutput('JwtKeysSecretArn', {});
  });
});
