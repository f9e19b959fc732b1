import { describe, expect, it } from 'vitest';
import {
  dayAttribute,
  familyFigures,
  familyOf,
  familyUpdate,
  USAGE_FAMILIES,
} from '../../functions/shared/data/usage-families';

/** DynamoDB's size of an item: attribute names, numbers (1 byte a 2 significant digits, plus 1) and strings. */
const itemSize = (item: Record<string, unknown>) =>
  Object.entries(item).reduce((size, [name, value]) => {
    const digits = String(Math.abs(Number(value)))
      .replace(/^0+/, '')
      .replace(/\.|0+$/g, '').length;
    const valueSize =
      typeof value === 'number' ? Math.ceil(digits / 2) + 1 : Buffer.byteLength(String(value));
    return size + Buffer.byteLength(name) + valueSize;
  }, 0);

/** Far above any plan: a day's amount of 10 significant digits (115 days of compute in one day), 12 a month. */
const DAY = 9_876_543_219;
const MONTH = 987_654_321_987;

describe('a billing family item', () => {
  it('stays one write unit on day 31 with every figure of its family', () => {
    for (const family of USAGE_FAMILIES) {
      const item: Record<string, unknown> = {
        pk: 'CO#co_01JABCDEFGHJKMNPQRSTVWXYZ0#USAGE',
        sk: `M#2031-01#${family}`,
        entity: 'usage_family',
      };
      for (const figure of familyFigures(family)) {
        item[figure] = MONTH;
        for (let day = 1; day <= 31; day++)
          item[dayAttribute(figure, `2031-01-${String(day).padStart(2, '0')}`)] = DAY;
      }
      expect(itemSize(item), family).toBeLessThanOrEqual(1024);
    }
  });

  it('adds the month total and the day count of every figure in one update, within the allowance', () => {
    const update = familyUpdate(
      'co_unit',
      '2031-01-31',
      [
        ['transcode_seconds', 60],
        ['compute_ms#media', 1200],
        ['compute_ms#workers', 30],
      ],
      { figure: 'transcode_seconds', limit: 1000 },
    );
    expect(update.Key.sk).toBe('M#2031-01#transcode');
    const names = Object.values(update.ExpressionAttributeNames);
    expect(names).toEqual(
      expect.arrayContaining([
        'transcode_seconds',
        't31',
        'compute_ms#media',
        'm31',
        'compute_ms#workers',
        'k31',
      ]),
    );
    expect(update.ConditionExpression).toBe('attribute_not_exists(#limited) OR #limited < :limit');
    // 940 used + 60 = 1000 passes (940 < 941); 941 would pass the allowance and is refused.
    expect(update.ExpressionAttributeValues?.[':limit']).toBe(941);
  });

  it('is the one family of a write: its meter, or its compute category alone', () => {
    expect(familyOf(['workflow_runs'])).toBe('workflows');
    expect(familyOf(['compute_ms#workflows'])).toBe('workflows');
    expect(familyOf(['compute_ms#api'])).toBe('api');
    expect(familyOf(['speech_characters', 'compute_ms#media'])).toBe('speech');
    expect(() => familyOf(['workflow_runs', 'compute_ms#media'])).toThrow();
    expect(() => familyOf(['api_requests'])).toThrow();
  });
});
