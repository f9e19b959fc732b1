import { getCustomType, markTypeDeleting, TypeChangedError } from '../../data/dynadata-types';
import { AppError } from '../../errors';
import { isBuiltinTypeName } from './builtin-types';
import { noSuchType, readOnly, requireMatch } from './type-admin';
import { deleteItemsOf, deleteRecord } from './type-sweep';
import { TYPE_NAME_PATTERN } from './types';

/**
 * `DELETE /v1/dynadata/types/{type}` and the operator CLI's `types delete`: a type with items is marked
 * `deleting` and its items go in the background (`type-sweep.ts`).
 */
export interface TypeDeletion {
  name: string;
  /** `deleted`: the type is gone; `deleting`: its items are being deleted in the background. */
  status: 'deleted' | 'deleting';
  deletedItems: number;
  /** Items still to delete (0 once the type is gone). */
  remainingItems: number;
}

const deleted = (name: string, deletedItems: number): TypeDeletion => ({
  name,
  status: 'deleted',
  deletedItems,
  remainingItems: 0,
});

/**
 * Deletes a custom type. While it has items this is refused (409 `type_has_items`) unless `deleteItems`: the
 * type is then marked deleting and its items go in the background (`deleting`); `wait` (the operator CLI)
 * deletes them within the call instead, alongside any background turn. A type with no items goes at once.
 */
export const deleteType = async (
  companyId: string,
  name: string,
  options: { deleteItems: boolean; ifMatch?: string | undefined; wait?: boolean },
  now: Date,
): Promise<TypeDeletion> => {
  if (isBuiltinTypeName(name)) throw readOnly(name);
  const current = TYPE_NAME_PATTERN.test(name) ? await getCustomType(companyId, name) : undefined;
  if (!current) throw noSuchType(name);
  requireMatch(options.ifMatch, current);
  if (current.itemCount > 0 && !options.deleteItems) {
    throw new AppError(
      'type_has_items',
      `The type ${name} still has ${current.itemCount} items; delete them first, or delete the type with ` +
        'deleteItems=true (the operator CLI: --force).',
      { extensions: { itemCount: current.itemCount } },
    );
  }
  const deletedBefore = current.status === 'deleting' ? current.deletedItems : 0;
  if (current.itemCount > 0 && current.status !== 'deleting') {
    try {
      await markTypeDeleting(companyId, name, current, now);
    } catch (error) {
      if (error instanceof TypeChangedError)
        throw new AppError('conflict', `The type ${name} changed; try again.`);
      throw error;
    }
  }
  if (current.itemCount > 0 && !options.wait) {
    return { name, status: 'deleting', deletedItems: deletedBefore, remainingItems: current.itemCount };
  }
  const swept =
    current.itemCount > 0 ? await deleteItemsOf(companyId, name, Number.POSITIVE_INFINITY) : undefined;
  const left = await deleteRecord(companyId, name);
  if (left !== undefined) {
    if (current.status === 'deleting' || swept) {
      return {
        name,
        status: 'deleting',
        deletedItems: deletedBefore + (swept?.deleted ?? 0),
        remainingItems: left,
      };
    }
    throw new AppError('type_has_items', `The type ${name} still has ${left} items.`, {
      extensions: { itemCount: left },
    });
  }
  // Every item the type held when this call read it is gone, whoever deleted it (a background turn runs
  // beside the CLI's): the mark was conditional on that count, and no item is written once it is deleting.
  return deleted(name, deletedBefore + Math.max(0, current.itemCount));
};
