import { env } from '../../env';
import type { FieldError } from '../../errors';

/**
 * Checks the storage references held by Dynadata document fields and by send_message. A reference must name
 * the platform bucket (or leave it out) and a normalised path under the company's own prefix
 * `companies/<companyId>/`. A path of another company and a malformed path get the same answer, so a
 * reference never reveals whether another tenant's object exists.
 */
export const companyPrefix = (companyId: string): string => `companies/${companyId}/`;

export const storageReferenceProblem = (companyId: string, value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be {bucket?, fullPath}';
  const { bucket, fullPath } = value as { bucket?: unknown; fullPath?: unknown };
  const invalid = 'is not a file of your company (expected a path under your storage prefix)';
  if (bucket !== undefined && bucket !== env().bucketName) return invalid;
  if (typeof fullPath !== 'string') return invalid;
  if (!fullPath.startsWith(companyPrefix(companyId))) return invalid;
  const rest = fullPath.slice(companyPrefix(companyId).length);
  if (rest === '' || rest.split('/').some((s) => s === '' || s === '.' || s === '..')) return invalid;
  const unsafe = [...fullPath].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f' || c === '\\');
  if (fullPath.length > 1024 || unsafe) return invalid;
  return undefined;
};

/** Field errors (pointers rooted at `root`) for the references that are not the company's. */
export const documentReferenceErrors = (
  companyId: string,
  refs: { pointer: string; value: unknown }[],
  root = '/body',
): FieldError[] =>
  refs.flatMap(({ pointer, value }) => {
    const problem = storageReferenceProblem(companyId, value);
    return problem ? [{ pointer: `${root}${pointer}`, message: problem }] : [];
  });
