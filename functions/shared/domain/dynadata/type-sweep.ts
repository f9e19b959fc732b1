import { queryItemsPage } from '../../data/dynadata-item-queries';
import { ItemWriteConflictError, removeItem } from '../../data/dynadata-items';
import {
  addDeletedItems,
  advanceTypeSweep,
  deleteCustomTypeRecord,
  getCustomType,
  type StoredTypeDefinition,
  TypeHasItemsError,
} from '../../data/dynadata-types';
import { companyOfTypesPartition } from '../../data/keys';
import { logger } from '../../observability/logger';
import { DELETING_STATUS, TYPE_ENTITY } from '../../types/dynadata-types';

/**
 * Deleting a company's Dynadata type with its items, in the background: `DELETE
 * /v1/dynadata/types/{type}?deleteItems=true` marks the type `deleting` (its items become read-only) and
 * answers 202; the mark reaches the event dispatcher through the table's stream, which deletes a share of the
 * items (`ITEMS_PER_SWEEP`, one transaction each so `databaseBytes` stays right) and hands on to the next
 * turn by bumping the type's `sweep` (a change the stream carries again), until no item is left and the
 * type's record goes. `GET /v1/dynadata/types/{type}` reads the progress (`deletedItems`, `remainingItems`),
 * then 404. A turn handled twice finds the next turn already taken and stops, and a turn that fails is
 * handled again by the stream, so a crash loses nothing and never runs two deletions of one type.
 */

/** Items one turn of a background deletion deletes before it hands on to the next. */
export const ITEMS_PER_SWEEP = 200;
/** Items read and deleted per page of a turn. */
const PAGE = 100;

/** Deletes the remaining items of a deleting type, at most `max`; how many it deleted and whether any remain. */
export const deleteItemsOf = async (
  companyId: string,
  name: string,
  max: number,
): Promise<{ deleted: number; more: boolean }> => {
  let deleted = 0;
  while (deleted < max) {
    const page = await queryItemsPage(companyId, name, {
      forward: true,
      limit: Math.min(PAGE, max - deleted),
    });
    let removed = 0;
    for (const { item } of page.items) {
      try {
        await removeItem(companyId, name, item, {}, { quiet: true });
        removed++;
      } catch (error) {
        // Deleted by another turn of the same deletion (the operator CLI's): nothing left to do for it.
        if (!(error instanceof ItemWriteConflictError)) throw error;
      }
    }
    if (removed > 0) await addDeletedItems(companyId, name, removed);
    deleted += removed;
    if (page.items.length === 0) return { deleted, more: false };
  }
  return { deleted, more: true };
};

/** Deletes the record of a type with no items left; the count left when items remain after all. */
export const deleteRecord = async (companyId: string, name: string): Promise<number | undefined> => {
  try {
    await deleteCustomTypeRecord(companyId, name);
    return undefined;
  } catch (error) {
    if (error instanceof TypeHasItemsError) return error.itemCount;
    throw error;
  }
};

/** A turn of a background deletion, as the stream carries it. */
export interface TypeSweep {
  companyId: string;
  name: string;
  sweep: number;
}

/**
 * The turn a change of a type record starts: the type just marked deleting, or its `sweep` bumped by the
 * turn before. Undefined for any other change (an item deleted lowers `itemCount`: no new turn).
 */
export const typeSweepOf = (
  newImage: Record<string, unknown>,
  oldImage: Record<string, unknown> | undefined,
): TypeSweep | undefined => {
  if (newImage.entity !== TYPE_ENTITY || newImage.status !== DELETING_STATUS) return undefined;
  const sweep = typeof newImage.sweep === 'number' ? newImage.sweep : 0;
  if (oldImage?.status === DELETING_STATUS && oldImage.sweep === newImage.sweep) return undefined;
  const companyId = companyOfTypesPartition(String(newImage.pk ?? ''));
  return companyId ? { companyId, name: String(newImage.sk), sweep } : undefined;
};

/** Whether the type still waits for this turn (a turn handled again after the next one began does nothing). */
const awaits = (type: StoredTypeDefinition | undefined, turn: TypeSweep): type is StoredTypeDefinition =>
  type !== undefined && type.status === 'deleting' && type.sweep === turn.sweep;

/**
 * One turn of a background deletion: deletes up to `ITEMS_PER_SWEEP` items, then hands on to the next turn,
 * or deletes the type's record once no item is left. A record whose count says items remain though none can
 * be read is left `deleting` and logged (the operator CLI's `types delete --force` finishes it).
 */
export const sweepDeletingType = async (turn: TypeSweep, now: Date): Promise<void> => {
  if (!awaits(await getCustomType(turn.companyId, turn.name), turn)) return;
  const { deleted: count, more } = await deleteItemsOf(turn.companyId, turn.name, ITEMS_PER_SWEEP);
  if (more) {
    await advanceTypeSweep(turn.companyId, turn.name, turn.sweep, now);
    return;
  }
  const left = await deleteRecord(turn.companyId, turn.name);
  if (left !== undefined) {
    logger.error('type deletion stopped: its count says items remain, none can be read', {
      companyId: turn.companyId,
      type: turn.name,
      itemCount: left,
      deletedThisTurn: count,
    });
  }
};
