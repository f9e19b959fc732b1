import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext } from './synth';

describe('cdk.json', () => {
  it('sets no feature flag this aws-cdk-lib refuses (cdk synth would stop on it)', () => {
    expect(() => new Stack(new App({ context: cdkJsonContext() }), 'Probe')).not.toThrow();
  });
});
