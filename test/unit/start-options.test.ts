import { describe, expect, it } from 'vitest';
import { parseStartOptions } from '../../functions/local/start-options';

describe('npm start options', () => {
  it('reads the flags and the webhook timing as durations, in either spelling', () => {
    expect(
      parseStartOptions([
        '--allow-loopback-outbound',
        '--webhook-retry-cap',
        '10s',
        '--webhook-retry-window=2h',
        '--webhook-disable-after=5m',
        '--webhook-retry-base=3',
      ]),
    ).toEqual({
      allowLoopbackOutbound: true,
      exitWithParent: false,
      webhooks: {
        retryBaseSeconds: 3,
        retryCapSeconds: 10,
        retryWindowSeconds: 7200,
        disableAfterSeconds: 300,
      },
    });
  });

  it('refuses an unknown option and a duration it cannot read, naming the option', () => {
    expect(() => parseStartOptions(['--webhook-disable'])).toThrow('unknown option --webhook-disable');
    expect(() => parseStartOptions(['--webhook-disable-after=soon'])).toThrow('--webhook-disable-after');
    expect(() => parseStartOptions(['--webhook-retry-cap'])).toThrow('--webhook-retry-cap');
    expect(() => parseStartOptions(['--webhook-retry-cap=0s'])).toThrow('--webhook-retry-cap');
  });
});
