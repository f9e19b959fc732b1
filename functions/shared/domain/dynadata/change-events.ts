import { LOG_ENTRIES_TYPE, MESSAGES_TYPE, toStoredItem } from '../../data/dynadata-items';
import type { EventInput } from '../../data/events';
import { typeOfItemsPartition } from '../../data/keys';
import { derivedUlid } from '../../ids';
import { type DynadataChangeEventType, MAX_INLINE_CHANGE_ITEM_BYTES } from '../../types/events';
import { toPublicItem } from './items';

/**
 * Dynadata change events: `dynadata.item.created`, `.updated` and `.deleted`, raised by every committed write
 * of an item of a company type (custom types and `contacts`; not `log_entries`, the audit trail, nor
 * `messages`, whose status changes raise `message.*`). The event dispatcher makes each from the table's
 * stream record of the item's write (`change-stream.ts`), with an id derived from the record's, written once
 * (`docs/decisions/0063-dynadata-change-events-from-the-stream.md`): exactly one per committed change and none
 * for a refused one, a moment after the write.
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

interface ChangeEventInput {
  typeName: string;
  /** The item after the change (before it, for a delete), as its GET route shows it. */
  item: { _id: string; _version: number } & Record<string, unknown>;
  changedFields: string[];
}

/** The change event's data: the item inlined when small enough. */
export const changeEventData = (input: ChangeEventInput) => {
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

/** A stream record of an item's write, as the dispatcher reads it. */
export interface ItemRecord {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
  /** The stream record's id: the same each time the record is handed over. */
  recordId: string;
  /** When the stream record was made (epoch ms), when known. */
  recordTime?: number;
}

/** What one item record makes: its change event (none for a bookkeeping write) and its count on the type. */
export interface ItemChange {
  companyId: string;
  typeName: string;
  /** The item's own key, `<pk>#<_id>`: two changes of one item are never in one transaction. */
  itemKey: string;
  event?: EventInput & { id: string };
  delta: { count: number; bytes: number };
}

const KINDS: Record<ItemRecord['eventName'], DynadataChangeEventType> = {
  INSERT: 'dynadata.item.created',
  MODIFY: 'dynadata.item.updated',
  REMOVE: 'dynadata.item.deleted',
};

/**
 * The change an item record of a type that raises change events makes, or undefined for any other record and
 * for a record of a write made before change events came from the stream (its image, the new one or a
 * delete's old one, lacks `_streamed`: that write raised its event and counted itself). A write that leaves
 * the item's `_version` (the mark before a delete) and a delete marked `_quiet` (a deleting type's sweep)
 * raise no event. The event's id is derived from the record's id and its time is the write's
 * (`updatedAt`; for a delete the stream record's, to the second), never before the item's previous write.
 */
export const itemChangeOf = (record: ItemRecord): ItemChange | undefined => {
  const image = record.eventName === 'REMOVE' ? record.oldImage : record.newImage;
  if (!image || typeof image.pk !== 'string' || typeof image.sk !== 'string') return undefined;
  const partition = typeOfItemsPartition(image.pk);
  if (!partition || !raisesChangeEvents(partition.typeName)) return undefined;
  // A write made before change events came from the stream wrote its event (and count) itself.
  if (image._streamed !== true) return undefined;
  const { companyId, typeName } = partition;
  const after = toStoredItem(typeName, image);
  const before = record.oldImage ? toStoredItem(typeName, record.oldImage) : undefined;
  const delta =
    record.eventName === 'INSERT'
      ? { count: 1, bytes: after.size }
      : record.eventName === 'REMOVE'
        ? { count: -1, bytes: -after.size }
        : { count: 0, bytes: after.size - (before?.size ?? after.size) };
  const change = { companyId, typeName, itemKey: `${image.pk}#${image.sk}`, delta };
  if (record.eventName === 'MODIFY' && before?._version === after._version) return change;
  if (record.eventName === 'REMOVE' && image._quiet === true) return change;
  // Never before the item's previous write, so an item's events list in the order of its changes.
  const previous = Date.parse(record.eventName === 'REMOVE' ? after.updatedAt : (before?.updatedAt ?? ''));
  const floor = Number.isNaN(previous) ? 0 : previous + 1;
  const written = record.eventName === 'REMOVE' ? Number.NaN : Date.parse(after.updatedAt);
  // Derived from the record alone: the same each time it is handled (its id with it).
  const time = Math.max(Number.isNaN(written) ? (record.recordTime ?? floor) : written, floor);
  const now = new Date(time);
  return {
    ...change,
    event: {
      id: `evt_${derivedUlid(time, record.recordId)}`,
      companyId,
      type: KINDS[record.eventName],
      resourceId: `dd:${typeName}:${after._id}`,
      data: changeEventData({
        typeName,
        item: toPublicItem(after),
        changedFields:
          record.eventName === 'MODIFY'
            ? changedFieldsOf(before?.data ?? {}, after.data)
            : Object.keys(after.data).sort(),
      }),
      now,
      ...(after.hop ? { hop: after.hop } : {}),
    },
  };
};
