import { AppError, type FieldError } from '../../errors';
import { resolveStoredObject } from '../storage-references';

/**
 * Checks the storage references held by Dynadata document fields with the platform's one validator
 * (`storage-references.ts`): the reference must be well formed, lie under the company's own prefix and name
 * a stored object. Every problem becomes a 400 field error at the field's pointer; a path of another company
 * and a missing object get the same message, so a reference never reveals whether another tenant's object
 * exists. Costs one GetItem per document field present.
 */
const NO_OBJECT = 'references no stored file of your company';

export const documentReferenceErrors = async (
  companyId: string,
  refs: { pointer: string; value: unknown }[],
  root = '/body',
): Promise<FieldError[]> => {
  const errors: FieldError[] = [];
  for (const { pointer, value } of refs) {
    const ref = value as { bucket?: string; fullPath: string };
    try {
      await resolveStoredObject(companyId, ref, `${root}${pointer}/fullPath`);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'invalid_storage_reference' && error.errors) errors.push(...error.errors);
      else if (error.code === 'not_found') errors.push({ pointer: `${root}${pointer}`, message: NO_OBJECT });
      else throw error;
    }
  }
  return errors;
};
