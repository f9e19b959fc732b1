import { CURRENT_VERSION_EXPIRED_FLAGS, FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext } from './synth';

describe('cdk.json', () => {
  it('sets only feature flags this aws-cdk-lib knows, none of them expired', () => {
    const flags = Object.keys(cdkJsonContext()).filter((key) => key.startsWith('@aws-cdk/'));
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.filter((flag) => !(flag in FLAGS))).toEqual([]);
    expect(flags.filter((flag) => CURRENT_VERSION_EXPIRED_FLAGS.includes(flag))).toEqual([]);
  });
});
