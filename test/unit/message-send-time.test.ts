import { describe, expect, it } from 'vitest';
import { MAX_SEND_AHEAD_MS, sendTimeOf } from '../../functions/shared/domain/messages/send-time';

const now = new Date('2026-11-29T12:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

describe('the send time of a message (sendAt)', () => {
  it('sends at once without sendAt, or with a time not ahead of now (up to a minute in the past)', () => {
    expect(sendTimeOf(undefined, now)).toBeUndefined();
    expect(sendTimeOf(at(0), now)).toBeUndefined();
    expect(sendTimeOf(at(-59_000), now)).toBeUndefined();
  });

  it('schedules a time ahead, up to 30 days, normalized to UTC', () => {
    expect(sendTimeOf('2026-11-29T13:30:00+01:00', now)?.toISOString()).toBe('2026-11-29T12:30:00.000Z');
    expect(sendTimeOf(at(MAX_SEND_AHEAD_MS), now)?.getTime()).toBe(now.getTime() + MAX_SEND_AHEAD_MS);
  });

  it('refuses a time further in the past or beyond 30 days, at /body/sendAt', () => {
    for (const sendAt of [at(-61_000), at(MAX_SEND_AHEAD_MS + 1)])
      expect(() => sendTimeOf(sendAt, now)).toThrow(
        expect.objectContaining({
          code: 'send_at_out_of_range',
          errors: [{ pointer: '/body/sendAt', message: expect.any(String) }],
        }),
      );
  });
});
