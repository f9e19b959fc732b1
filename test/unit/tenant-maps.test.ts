import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { asTenantMap } from '../../functions/shared/data/client';

/** What the table client does with an item (`marshallOptions` of `data/client.ts`), and back. */
const roundTrip = (value: unknown) =>
  unmarshall(marshall({ data: asTenantMap(value) }, { removeUndefinedValues: true })).data;

describe('tenant JSON stored as maps', () => {
  it('keeps every member name, whatever Object.prototype calls it, at any depth', () => {
    const value = {
      constructor: 'y',
      toString: 'z',
      valueOf: 1,
      hasOwnProperty: true,
      nested: { constructor: { name: 'Set' }, list: [{ toString: 1, valueOf: null }] },
      numberLike: { constructor: { name: 'Number' } },
      stringLike: { constructor: { name: 'String' }, toString: 'x' },
      mapLike: { constructor: { name: 'Map' } },
    };
    expect(roundTrip(value)).toEqual(value);
  });

  it('is what the marshaller alone gets wrong', () => {
    expect(() => marshall({ data: { constructor: 'y' } })).toThrow();
    expect(unmarshall(marshall({ data: { a: { constructor: { name: 'String' } } } })).data).not.toEqual({
      a: { constructor: { name: 'String' } },
    });
  });
});
