import { UsageError } from './target';

/**
 * Operator commands of storage:
 *   files reindex [--company ID] [--page-size N] [--max PAGES] [--from CURSOR]
 * puts the stored objects recorded before the file list existed into it (`data/stored-file-reindex.ts`).
 */
export const STORAGE_USAGE = `  files reindex [--company ID] [--page-size N] [--max PAGES] [--from CURSOR]
                                        list the files stored before the file list existed (a Scan; re-runnable;
                                        a run stopped by --max prints the --from cursor to go on)`;

export interface StorageCommandValues {
  company?: string;
  'page-size'?: string;
  max?: string;
  from?: string;
}

const DEFAULT_PAGE_SIZE = 500;

const wholeNumber = (value: string | undefined, flag: string, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${flag} must be a whole number from 1 to ${max}`);
  return n;
};

export const runStorageCommand = async (
  key: string,
  values: StorageCommandValues,
): Promise<{ json: unknown; text: string } | undefined> => {
  if (key !== 'files reindex') return undefined;
  const { MAX_REINDEX_PAGE, decodeReindexCursor, reindexStoredFiles } = await import(
    '../shared/data/stored-file-reindex'
  );
  const companyId = values.company?.trim() || undefined;
  if (companyId !== undefined) {
    const { getCompany } = await import('../shared/data/companies');
    if (!(await getCompany(companyId))) throw new Error(`no company ${companyId}`);
  }
  const cursor = values.from?.trim() || undefined;
  if (cursor !== undefined) {
    try {
      decodeReindexCursor(cursor);
    } catch {
      throw new UsageError('--from must be a cursor printed by an earlier files reindex');
    }
  }
  const progress = await reindexStoredFiles({
    companyId,
    pageSize: wholeNumber(values['page-size'], 'page-size', MAX_REINDEX_PAGE) ?? DEFAULT_PAGE_SIZE,
    maxPages: wholeNumber(values.max, 'max', 1_000_000),
    cursor,
  });
  const scope = companyId === undefined ? 'every company' : companyId;
  const counts =
    `files reindex (${scope}): ${progress.indexed} files indexed, ${progress.alreadyIndexed} already indexed ` +
    `meanwhile; ${progress.scanned} items read in ${progress.pages} pages`;
  return {
    json: progress,
    text:
      progress.cursor === null
        ? `${counts}; done`
        : `${counts}; not finished: go on with --from ${progress.cursor}`,
  };
};
