import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { ROUTE_GROUPS } from '../../functions/shared/routes/route-table';
import { resourcesOfType } from './rest-api';
import { logicalIdOf, synthesizeApp } from './synth';

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
    // Express: billed per request and duration; every execution fits its 5 minutes.
    expect(delivery?.Properties.StateMachineType).toBe('EXPRESS');
  });

  it('gives the contacts, dynadata, workflows and mcp (run_workflow) groups the delivery machine ARN', () => {
    const api = environments(synth.apiTemplate);
    const withArn = api.filter((v) => 'MESSAGE_DELIVERY_STATE_MACHINE_ARN' in v);
    expect(withArn).toHaveLength(4);
  });

  it('generates the list-cursor key in Secrets Manager, readable by the groups that list (dynadata, workflows, mcp) only', () => {
    const secretId = logicalIdOf(synth.data.cursorKey);
    const secret = resourcesOfType(synth.dataTemplate, 'AWS::SecretsManager::Secret')[secretId];
    expect(secret?.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
    expect(secret?.Properties.SecretString).toBeUndefined();
    const secretRef = JSON.stringify(synth.api.resolve(synth.data.cursorKey.secretArn));
    const functions = resourcesOfType(synth.apiTemplate, 'AWS::Lambda::Function');
    // The contacts group has no list route: its bundle reads no cursor key, so it holds none. Workflows list
    // Dynadata items with actions/dynadata/list, the MCP server with list_dynadata_items.
    const listing = ['dynadata', 'workflows', 'mcp'];
    for (const group of ROUTE_GROUPS) {
      const fn = functions[logicalIdOf(synth.api.groups[group].function)];
      const variables = ((fn?.Properties.Environment ?? {}) as { Variables: Record<string, unknown> })
        .Variables;
      if (listing.includes(group))
        expect(JSON.stringify(variables.DYNADATA_CURSOR_SECRET_ARN), group).toBe(secretRef);
      else expect(variables.DYNADATA_CURSOR_SECRET_ARN, group).toBeUndefined();
      expect(variables.DYNADATA_CURSOR_SECRET, group).toBeUndefined();
    }
    type Statement = { Action: string | string[]; Resource: unknown };
    const readers = Object.values(resourcesOfType(synth.apiTemplate, 'AWS::IAM::Policy')).filter((p) =>
      (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(
        (s) =>
          [s.Action].flat().includes('secretsmanager:GetSecretValue') &&
          [s.Resource].flat().some((r) => JSON.stringify(r) === secretRef),
      ),
    );
    const roles = JSON.stringify(readers.map((p) => p.Properties.Roles));
    expect(readers).toHaveLength(listing.length);
    for (const group of listing)
      expect(roles).toContain(logicalIdOf(synth.api.groups[group as 'dynadata'].function.role as never));
  });
});
