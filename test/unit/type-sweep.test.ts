import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { typeSweepOf } from '../../functions/shared/domain/dynadata/type-sweep';
import { isDispatchable } from '../../functions/workers/event-dispatcher/index';

/** The turns of a type's background deletion, as the table's stream starts them. */
const type = (fields: Record<string, unknown>) => ({
  pk: 'CO#c1#DDTYPE',
  sk: 'orders',
  entity: 'dd_type',
  ...fields,
});

describe('the turns of a background type deletion', () => {
  it('starts a turn when the type is marked deleting, and at each bump of its sweep', () => {
    expect(typeSweepOf(type({ status: 'deleting', sweep: 0 }), type({ status: 'active' }))).toEqual({
      companyId: 'c1',
      name: 'orders',
      sweep: 0,
    });
    expect(
      typeSweepOf(type({ status: 'deleting', sweep: 3 }), type({ status: 'deleting', sweep: 2 })),
    ).toMatchObject({ sweep: 3 });
  });

  it('starts none for an item deleted (the count changes, the sweep does not) or an active type', () => {
    expect(
      typeSweepOf(
        type({ status: 'deleting', sweep: 2, itemCount: 4 }),
        type({ status: 'deleting', sweep: 2, itemCount: 5 }),
      ),
    ).toBeUndefined();
    expect(typeSweepOf(type({ status: 'active', itemCount: 1 }), type({ itemCount: 0 }))).toBeUndefined();
    expect(typeSweepOf({ ...type({ status: 'deleting' }), entity: 'event' }, undefined)).toBeUndefined();
    expect(typeSweepOf({ ...type({ status: 'deleting' }), pk: 'CO#c1#EVENT' }, undefined)).toBeUndefined();
  });

  it('reaches the dispatcher only for types being deleted, by their raw attributes', () => {
    const modify = (status: string): DynamoDBRecord => ({
      eventName: 'MODIFY',
      dynamodb: {
        Keys: { pk: { S: 'CO#c1#DDTYPE' }, sk: { S: 'orders' } },
        NewImage: { entity: { S: 'dd_type' }, status: { S: status } },
      },
    });
    expect(isDispatchable(modify('deleting'))).toBe(true);
    expect(isDispatchable(modify('active'))).toBe(false);
  });
});
