import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  APPLICATION_LOG_LEVEL,
  SYSTEM_LOG_LEVEL_CONTEXT,
  systemLogLevelOf,
} from '../../lib/constructs/app-function';
import { type SynthesizedApp, synthesizeApp } from './synth';

/** `LoggingConfig` of every Lambda function of every stack, by construct path. */
const loggingConfigs = (synth: SynthesizedApp): Record<string, Record<string, unknown> | undefined> => {
  const configs: Record<string, Record<string, unknown> | undefined> = {};
  for (const stack of synth.assembly.stacks) {
    const resources = stack.template.Resources as Record<
      string,
      {
        Type: string;
        Metadata?: Record<string, string>;
        Properties?: { LoggingConfig?: Record<string, unknown> };
      }
    >;
    for (const [logicalId, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const { LogGroup: _logGroup, ...config } = resource.Properties?.LoggingConfig ?? {};
      configs[resource.Metadata?.['aws:cdk:path'] ?? `${stack.stackName}/${logicalId}`] = config;
    }
  }
  return configs;
};

const built: SynthesizedApp[] = [];
const synthesize = (context?: Record<string, unknown>) => {
  const synth = synthesizeApp({ bundling: false, ...(context ? { context } : {}) });
  built.push(synth);
  return synth;
};
afterAll(() => {
  for (const synth of built) synth.cleanup();
});

describe('function logs', () => {
  it('are JSON filtered by level in every function of every stack, without platform lines by default', () => {
    const configs = loggingConfigs(synthesize());
    // The API's route groups, authorizer and shipper, and the jobs stack's workers.
    expect(Object.keys(configs).length).toBeGreaterThan(10);
    for (const [path, config] of Object.entries(configs)) {
      expect(config, path).toEqual({
        LogFormat: 'JSON',
        ApplicationLogLevel: APPLICATION_LOG_LEVEL,
        SystemLogLevel: 'WARN',
      });
    }
    // The level the Powertools Logger already used (its default): no line it wrote before is dropped.
    expect(APPLICATION_LOG_LEVEL).toBe('INFO');
  });

  it('bring the platform lines back in every function when the lambdaSystemLogLevel context asks', () => {
    const configs = loggingConfigs(synthesize({ [SYSTEM_LOG_LEVEL_CONTEXT]: 'INFO' }));
    expect(Object.keys(configs).length).toBeGreaterThan(10);
    for (const [path, config] of Object.entries(configs)) {
      expect(config?.SystemLogLevel, path).toBe('INFO');
    }
  });

  it('take the context level in any case and refuse a level Lambda does not know', () => {
    const levelWith = (context: Record<string, unknown>) => systemLogLevelOf(new App({ context }));
    expect(levelWith({})).toBe('WARN');
    expect(levelWith({ [SYSTEM_LOG_LEVEL_CONTEXT]: 'debug' })).toBe('DEBUG');
    expect(levelWith({ [SYSTEM_LOG_LEVEL_CONTEXT]: 'WARN' })).toBe('WARN');
    expect(() => levelWith({ [SYSTEM_LOG_LEVEL_CONTEXT]: 'ERROR' })).toThrow(/lambdaSystemLogLevel/);
  });
});
