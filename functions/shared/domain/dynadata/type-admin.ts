import { queryItemsPage, removeItem } from '../../data/dynadata-items';
import {
  deleteCustomTypeRecord,
  getCustomType,
  IndexChangeWithItemsError,
  putCustomType,
  type StoredTypeDefinition,
  TypeHasItemsError,
} from '../../data/dynadata-types';
import { AppError, ValidationError } from '../../errors';
import './builtin-functions';
import { isBuiltinTypeName } from './builtin-types';
import { registeredFunctionNames } from './functions';
import { normaliseTypeSchema } from './json-schema';
import { TYPE_NAME_PATTERN } from './types';

/** Operator actions on custom types (the `types` commands of the admin CLI). */
export const putType = async (
  companyId: string,
  input: { name: string; description: string; schema: unknown; functions: string[] },
  now: Date,
): Promise<StoredTypeDefinition> => {
  if (!TYPE_NAME_PATTERN.test(input.name)) {
    throw new ValidationError([
      { pointer: '/name', message: 'must be 1 to 63 lowercase letters, digits or _, starting with a letter' },
    ]);
  }
  if (isBuiltinTypeName(input.name)) {
    throw new ValidationError([{ pointer: '/name', message: `${input.name} is a built-in type name` }]);
  }
  const { schema, problems, indexed } = await normaliseTypeSchema(input.schema);
  const known = registeredFunctionNames();
  for (const f of input.functions)
    if (!known.includes(f)) problems.push({ pointer: '/functions', message: `unknown function ${f}` });
  if (problems.length > 0) {
    throw new ValidationError(
      problems,
      `The schema is not valid:\n${problems.map((p) => `  ${p.pointer}: ${p.message}`).join('\n')}`,
    );
  }
  const { 'x-indexed': _indexed, ...stored } = schema;
  try {
    return await putCustomType(
      companyId,
      {
        name: input.name,
        description: input.description,
        schemaJson: JSON.stringify(stored),
        indexed,
        functions: input.functions,
      },
      now,
    );
  } catch (error) {
    if (error instanceof IndexChangeWithItemsError)
      throw new ValidationError([{ pointer: '/x-indexed', message: error.message }], error.message);
    throw error;
  }
};

export { listTypeSummaries } from './types';

/**
 * Deletes a custom type. While it has items the deletion is refused unless `force`, which first deletes
 * every item (one transaction each, so the database-bytes figure stays right).
 */
export const deleteType = async (
  companyId: string,
  name: string,
  force: boolean,
): Promise<{ name: string; deletedItems: number }> => {
  const type = await getCustomType(companyId, name);
  if (!type) throw new AppError('not_found', `no custom type ${name}`);
  let deletedItems = 0;
  if (force) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await queryItemsPage(companyId, name, {
        useIndex: false,
        forward: true,
        limit: 100,
        ...(startKey ? { startKey } : {}),
      });
      for (const { item } of page.items) {
        await removeItem(companyId, name, item, {});
        deletedItems++;
      }
      startKey = page.lastKey;
    } while (startKey);
  }
  try {
    await deleteCustomTypeRecord(companyId, name);
  } catch (error) {
    if (error instanceof TypeHasItemsError) {
      throw new AppError(
        'conflict',
        `The type ${name} still has ${error.itemCount} items; delete them first or pass --force.`,
      );
    }
    throw error;
  }
  return { name, deletedItems };
};
