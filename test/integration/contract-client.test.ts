import { beforeAll, describe, expect, inject, it } from 'vitest';
import { generateClientTypes, type ToolRun, typecheckClientScenario } from '../contract/client-types';
import { type SeededTenant, seedTenant, wavBytes } from '../contract/seed';
import { apiUrl } from './support';

/**
 * The generated client proves the document: types generated from it with openapi-typescript, the client
 * scenario type-checked strictly against them, then run against the local stack through openapi-fetch.
 */
interface ScenarioModule {
  runClientScenario: (input: {
    apiUrl: string;
    apiKey: string;
    orderType: string;
    wav: Uint8Array;
  }) => Promise<string[]>;
}

// Imported by a computed name: the scenario imports the generated types, which exist only at test time, so
// the project's own type-check must not follow this import (the scenario has a tsconfig of its own).
const scenarioModule = '../contract/client/scenario';

let generated: ToolRun;
let tenant: SeededTenant;
beforeAll(async () => {
  generated = await generateClientTypes();
  tenant = await seedTenant(apiUrl, inject('stack').dataDir);
}, 120_000);

describe('a client generated from the OpenAPI document', () => {
  it('generates its types with openapi-typescript', () => {
    expect(generated.ok, generated.output).toBe(true);
  });

  it('type-checks the scenario strictly against the generated types', { timeout: 240_000 }, async () => {
    const checked = await typecheckClientScenario();
    expect(checked.output.trim(), 'tsc over test/contract/client/tsconfig.json').toBe('');
    expect(checked.ok).toBe(true);
  });

  it('runs the scenario through every route group against the local stack', {
    timeout: 120_000,
  }, async () => {
    const { runClientScenario } = (await import(/* @vite-ignore */ scenarioModule)) as ScenarioModule;
    const steps = await runClientScenario({
      apiUrl,
      apiKey: tenant.apiKey,
      orderType: 'orders',
      wav: wavBytes(20),
    });
    expect(steps).toEqual([
      'public plans',
      'self without a credential',
      'self and usage',
      'dynadata',
      'contacts send_message',
      'storage',
      'transcodes',
      'transcriptions',
      'spoken-text',
      'speech',
      'webhooks and events',
      'mcp and docs',
      'workflows',
    ]);
    await tenant.close();
  });
});
