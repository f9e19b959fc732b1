import { LOG_ENTRIES_TYPE, MESSAGES_TYPE } from '../../data/dynadata-items';
import type { TransactItem } from '../../data/entity';
import { eventItem } from '../../data/events';
import { type DynadataChangeEventType, MAX_INLINE_CHANGE_ITEM_BYTES } from '../../types/events';

/**
 * Dynadata change events: `dynadata.item.created`, `.updated` and `.deleted`, raised by every committed write
 * of an item of a company type (custom types and `contacts`; not `log_entries`, the audit trail, nor
 * `messages`, whose status changes raise `message.*`). The event is an item of the write's own transaction
 * (the outbox), so there is exactly one per committed change and none for a refused one.
 *
 * `data`: `{type, _id, _version, changedFields, item}`. `item` is the item after the change (before it, for a
 * delete), as `GET …/item/{_id}` shows it, when its JSON takes at most `MAX_INLINE_CHANGE_ITEM_BYTES`;
 * otherwise `item` is null and `itemOmitted` is true (read it by `_id`). `changedFields` are the top-level
 * fields whose value the change set, changed or removed (every field, for a create and a delete).
 *
 * The event's resource is the item (`dd:<type>:<_id>`), so the deliveries of one item keep their order.
 */
export const raisesChangeEvents = (typeName: string): boolean =>
  typeName !== LOG_ENTRIES_TYPE && typeName !== MESSAGES_TYPE;

/** The top-level fields whose JSON value differs between `before` and `after`, in name order. */
export const changedFieldsOf = (
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] => {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
};

export interface ChangeEventInput {
  companyId: string;
  typeName: string;
  kind: DynadataChangeEventType;
  /** The item after the change (before it, for a delete), as its GET route shows it. */
  item: { _id: string; _version: number } & Record<string, unknown>;
  changedFields: string[];
  /** The workflow hop of the request or run that made the change. */
  hop: number;
  now: Date;
}

/** The change event's data: the item inlined when small enough. */
export const changeEventData = (input: Omit<ChangeEventInput, 'companyId' | 'hop' | 'now'>) => {
  const itemJson = JSON.stringify(input.item);
  const inline = Buffer.byteLength(itemJson, 'utf8') <= MAX_INLINE_CHANGE_ITEM_BYTES;
  return {
    type: input.typeName,
    _id: input.item._id,
    _version: input.item._version,
    changedFields: input.changedFields,
    item: inline ? input.item : null,
    ...(inline ? {} : { itemOmitted: true }),
  };
};

/** The transaction items of a change: its event, or none for a type that raises none. */
export const changeEventItems = (input: ChangeEventInput): TransactItem[] =>
  raisesChangeEvents(input.typeName)
    ? [
        eventItem({
          companyId: input.companyId,
          type: input.kind,
          resourceId: `dd:${input.typeName}:${input.item._id}`,
          data: changeEventData(input),
          now: input.now,
          ...(input.hop > 0 ? { hop: input.hop } : {}),
        }),
      ]
    : [];
