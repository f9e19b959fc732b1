import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { synthesizeApp } from './synth';

const synth = synthesizeApp({ bundling: false });
afterAll(() => synth.cleanup());

const environments = (template: Template): Record<string, unknown>[] =>
  Object.values(template.findResources('AWS::Lambda::Function')).map(
    (f) =>
      (f.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables ??
      {},
  );

describe('Dynadata and messaging infrastructure', () => {
  it('never sets V1_ALLOW_LOG_ENTRY_WRITES (or the local-only loopback switch) on any function', () => {
    const templates = [synth.apiTemplate, synth.dataTemplate, Template.fromStack(synth.jobs)];
    const all = templates.flatMap(environments);
    expect(all.length).toBeGreaterThan(10);
    for (const variables of all) {
      expect(variables).not.toHaveProperty('V1_ALLOW_LOG_ENTRY_WRITES');
      expect(variables).not.toHaveProperty('ALLOW_LOOPBACK_WEBHOOKS');
    }
    expect(JSON.stringify(synth.assembly.stacks.map((s) => s.template))).not.toContain(
      'V1_ALLOW_LOG_ENTRY_WRITES',
    );
  });

  it('builds the message-delivery machine from its ASL with the worker substituted', () => {
    const jobs = Template.fromStack(synth.jobs);
    const machines = Object.values(jobs.findResources('AWS::StepFunctions::StateMachine'));
    const delivery = machines.find((m) =>
      JSON.stringify(m.Properties).includes('MessageDeliveryWorkerFunctionArn'),
    );
    expect(delivery).toBeDefined();
  });

  it('gives the contacts and dynadata groups the delivery machine ARN', () => {
    const api = environments(synth.apiTemplate);
    const withArn = api.filter((v) => 'MESSAGE_DELIVERY_STATE_MACHINE_ARN' in v);
    expect(withArn).toHaveLength(2);
  });
});
