import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { CURRENT_VERSION_EXPIRED_FLAGS } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import { createApp, type PublicApiApp } from '../../lib/app';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';

/** The `context` of cdk.json, as the CDK CLI hands it to the app. */
export const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

/**
 * The context the tests synthesize with: cdk.json's feature flags (minus flags this aws-cdk-lib rejects
 * outright; `cdk-context.test.ts` reports those) and the metadata the CLI asks for.
 */
export const testContext = (): Record<string, unknown> => ({
  ...Object.fromEntries(
    Object.entries(cdkJsonContext()).filter(([flag]) => !CURRENT_VERSION_EXPIRED_FLAGS.includes(flag)),
  ),
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
});

export interface SynthesizedApp extends PublicApiApp {
  assembly: CloudAssembly;
  dataTemplate: Template;
  apiTemplate: Template;
  cleanup: () => void;
}

/**
 * Builds and synthesizes the whole app (bundling every function with esbuild unless `bundling` is false) into a
 * temporary directory, with `context` beside the test context (what `cdk deploy -c` would add).
 */
export const synthesizeApp = (
  options: { bundling?: boolean; outdir?: string; context?: Record<string, unknown> } = {},
): SynthesizedApp => {
  const bundling = options.bundling ?? true;
  const built = createApp({
    ...(options.outdir ? { outdir: options.outdir } : {}),
    context: {
      ...testContext(),
      ...(bundling ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
  const assembly = built.app.synth();
  return {
    ...built,
    assembly,
    dataTemplate: Template.fromStack(built.data),
    apiTemplate: Template.fromStack(built.api),
    cleanup: () => rmSync(assembly.directory, { recursive: true, force: true }),
  };
};

/** Logical id of a construct's CloudFormation resource (its default child for an L2). */
export const logicalIdOf = (construct: IConstruct): string => {
  const resource = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(resource).getLogicalId(resource);
};

export type PolicyStatement = {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
};

/** The statements of every inline policy attached to the role `roleLogicalId` in `template`. */
export const statementsOfRole = (template: Template, roleLogicalId: string): PolicyStatement[] =>
  Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleLogicalId }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: PolicyStatement[] } } }).Properties.PolicyDocument
        .Statement,
  );
