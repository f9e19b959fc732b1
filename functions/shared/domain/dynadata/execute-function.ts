import { getStoredItem } from '../../data/dynadata-items';
import { fieldErrors, InsufficientScopeError, NotFoundError, ValidationError } from '../../errors';
import type { AuthContext } from '../../types/auth';
import { findDynadataFunction } from './functions';
import { resolveType } from './types';

/** Runs a registered function on a type or on one item (unknown function or item → 404). */
export const executeFunction = async (call: {
  auth: AuthContext;
  requestId: string;
  typeName: string;
  itemId?: string;
  functionName: string;
  input: unknown;
}): Promise<{ status: number; body: Record<string, unknown> }> => {
  const { auth, typeName, itemId, functionName } = call;
  const type = await resolveType(auth.companyId, typeName);
  const fn = findDynadataFunction(
    type.name,
    type.functions,
    functionName,
    itemId === undefined ? 'type' : 'item',
  );
  if (!fn) throw new NotFoundError(`The type ${typeName} has no function ${functionName}.`);
  for (const scope of [fn.scope, ...(fn.alsoRequires ?? [])])
    if (!auth.scopes.includes(scope)) throw new InsufficientScopeError(scope);
  const parsed = fn.input.safeParse(call.input);
  if (!parsed.success) throw new ValidationError(fieldErrors('body', parsed.error));
  if (itemId !== undefined) {
    if (!(await getStoredItem(auth.companyId, typeName, itemId)))
      throw new NotFoundError(`There is no ${typeName} item ${itemId}.`);
  }
  const result = await fn.run(parsed.data, {
    companyId: auth.companyId,
    auth,
    typeName: type.name,
    ...(itemId === undefined ? {} : { itemId }),
    requestId: call.requestId,
    now: new Date(),
  });
  return { status: result.status ?? 200, body: result.body };
};
