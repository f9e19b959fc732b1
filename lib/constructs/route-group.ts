import { Duration } from 'aws-cdk-lib';
import { LambdaIntegration } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { DOCS_PACKAGE, DOCS_PACKAGE_FILES } from '../../functions/shared/http/docs-page';
import type { RouteGroup } from '../../functions/shared/routes/route-table';
import { type DataResources, GROUP_ACCESS } from '../access';
import { AppFunction } from './app-function';

export interface RouteGroupProps {
  group: RouteGroup;
  data: DataResources;
}

/**
 * Modules a group loads on first use, kept out of its bundle: the o200k_base encoding (about 2.4 MB), the
 * markdown parser (about 110 KB), ajv (about 100 KB), the MCP SDK (about 85 KB, with its own zod), the cron
 * parser (about 33 KB) and the OpenAPI document's generator (with every route, about 120 KB beside its own
 * zod). Without them the speech, dynadata, workflows and mcp bundles would exceed the 300 KB budget, and the
 * public group's cold start would compile the generator.
 */
const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base';
const MARKDOWN = '#lazy/markdown-parser';
const AJV = '#lazy/json-schema-ajv';
const MCP_SDK = '#lazy/mcp-sdk';
const SCHEDULES = '#lazy/schedule-expression';
const OPENAPI = '#lazy/openapi';
export const LAZY_MODULES: Partial<Record<RouteGroup, readonly string[]>> = {
  dynadata: [AJV],
  // The MCP tools that read and write Dynadata items validate them as the dynadata group does; run_workflow
  // runs any action, as the workflows group does.
  mcp: [TOKENIZER, MARKDOWN, AJV, MCP_SDK],
  // The OpenAPI document's generator, with every area's routes (about 120 KB a cold start would compile).
  public: [OPENAPI],
  speech: [TOKENIZER, MARKDOWN],
  // Saving a definition with a schedule checks it with the cron parser.
  workflows: [TOKENIZER, MARKDOWN, AJV, SCHEDULES],
};

/** Groups that work longer than the default: sync workflow runs (the route, the MCP tool) end before API Gateway's 29 s. */
const TIMEOUTS: Partial<Record<RouteGroup, Duration>> = {
  workflows: Duration.seconds(29),
  mcp: Duration.seconds(29),
};
/** Package files a group reads at run time: the public group serves the documentation page's assets. */
const PACKAGE_FILES: Partial<Record<RouteGroup, { package: string; files: readonly string[] }>> = {
  public: { package: DOCS_PACKAGE, files: DOCS_PACKAGE_FILES },
};

/**
 * Modules the MCP SDK's lazy module takes from another file: the SDK's zod 3 support (zod 4 only here) and its
 * default JSON Schema validator (the server is given its own), both unused.
 */
const MCP_SDK_UNUSED = 'functions/shared/mcp/sdk-unused.ts';
export const LAZY_MODULE_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  [MCP_SDK]: {
    'zod/v3': MCP_SDK_UNUSED,
    'zod-to-json-schema': MCP_SDK_UNUSED,
    ajv: MCP_SDK_UNUSED,
    'ajv-formats': MCP_SDK_UNUSED,
  },
};

/**
 * One route group: its Lambda (`functions/api/<group>/index.ts`), its grants from `GROUP_ACCESS`, and the
 * proxy integration every method of the group shares.
 */
export class RouteGroupFunction extends Construct {
  readonly function: AppFunction;
  readonly integration: LambdaIntegration;

  constructor(scope: Construct, id: string, { group, data }: RouteGroupProps) {
    super(scope, id);
    this.function = new AppFunction(this, 'Function', {
      entry: `functions/api/${group}/index.ts`,
      description: `Public API v1, route group ${group}`,
      access: GROUP_ACCESS[group],
      data,
      lazyModules: LAZY_MODULES[group],
      ...(TIMEOUTS[group] ? { timeout: TIMEOUTS[group] } : {}),
      packageFiles: PACKAGE_FILES[group],
      lazyModuleAliases: LAZY_MODULE_ALIASES,
    });
    // The console's test invocations are not needed: one permission per method, for the v1 stage only.
    this.integration = new LambdaIntegration(this.function, { allowTestInvoke: false });
  }
}
