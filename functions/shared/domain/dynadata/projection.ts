import { type FieldError, ValidationError } from '../../errors';
import { etagOf } from '../../etag';
import { getItem, type PublicItem } from './items';
import { MAX_PROJECTED_FIELDS } from './list-request';
import { type ResolvedType, resolveType } from './types';

/**
 * Field projection of lists (`fields: [...]`) and of a get (`?fields=a,b`): the answer holds the named
 * top-level fields of each item, and always the system fields `_id`, `_version`, `createdAt`, `updatedAt`
 * (naming them is allowed and changes nothing). A name the type does not declare is refused with a pointer.
 *
 * The projection is applied to the items read, not sent to DynamoDB as a `ProjectionExpression`: DynamoDB
 * bills a read by the size of the whole item whatever it returns, so projecting there would save no read
 * units, and the list cursor and the item's tag need the full item anyway. A projected get answers the
 * entity tag of the whole stored item, so `If-Match` on a later write names the stored item whatever fields
 * the read asked for.
 */
const SYSTEM_FIELDS = ['_id', '_version', 'createdAt', 'updatedAt'];

/** The declared fields `fields` names (system fields dropped), or a validation error at `pointerOf(i)`. */
export const projectedFields = (
  type: ResolvedType,
  fields: readonly string[] | undefined,
  pointerOf: (i: number) => string,
): string[] | undefined => {
  if (fields === undefined) return undefined;
  const declared = new Set(Object.keys((type.schema.properties ?? {}) as Record<string, unknown>));
  const errors: FieldError[] = [];
  fields.forEach((field, i) => {
    if (!declared.has(field) && !SYSTEM_FIELDS.includes(field))
      errors.push({ pointer: pointerOf(i), message: `${field} is not a field of ${type.name}` });
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return fields.filter((field) => !SYSTEM_FIELDS.includes(field));
};

/** The item with only the system fields and `fields` (all of it when `fields` is undefined). */
export const projectItem = (item: PublicItem, fields: readonly string[] | undefined): PublicItem => {
  if (fields === undefined) return item;
  const out: PublicItem = {
    _id: item._id,
    _version: item._version,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
  for (const field of fields) if (Object.hasOwn(item, field)) out[field] = item[field];
  return out;
};

/**
 * `GET /v1/dynadata/type/{type}/item/{_id}?fields=a,b`: the item, projected when `fields` (comma-separated)
 * is given, with the tag of the whole stored item.
 */
export const getProjectedItem = async (
  companyId: string,
  typeName: string,
  id: string,
  fieldsParam: string | undefined,
): Promise<{ body: PublicItem; etag: string }> => {
  const type = await resolveType(companyId, typeName);
  const names =
    fieldsParam === undefined
      ? undefined
      : fieldsParam
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
  if (names !== undefined && (names.length === 0 || names.length > MAX_PROJECTED_FIELDS))
    throw new ValidationError([
      { pointer: '/query/fields', message: `must name 1 to ${MAX_PROJECTED_FIELDS} fields, comma-separated` },
    ]);
  const fields = projectedFields(type, names, () => '/query/fields');
  // The type is cached by now: the read costs the one GetItem of the item.
  const item = await getItem(companyId, typeName, id);
  return { body: projectItem(item, fields), etag: etagOf(item) };
};
