import { getCustomType, listCustomTypes } from '../../data/dynadata-types';
import { env } from '../../env';
import { AppError, NotFoundError } from '../../errors';
import { createTtlCache } from '../../ttl-cache';
import { MAX_LIST_PAGE, type PageRequest, pageById } from '../pages';
import { BUILTIN_TYPES, isBuiltinTypeName } from './builtin-types';
import { functionsOfType } from './functions';
import type { JsonSchema } from './json-schema';

/**
 * Resolves a type name of a company to its definition. Custom type definitions are cached in memory for
 * `TYPE_CACHE_TTL_MS` so a warm read costs no extra DynamoDB request; a write still conditions on the cached
 * `typeVersion`, so an item is never written against a schema that changed (the write is retried once with
 * the fresh definition). Reads may use a definition up to the TTL old.
 */
export const TYPE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const TYPE_CACHE_TTL_MS = 10_000;
const BUILT_IN_ORDER = ['contacts', 'messages', 'log_entries'];

export interface ResolvedType {
  name: string;
  description: string;
  builtIn: boolean;
  /** Whether the API may write items (log_entries: only with the self-hosted switch). */
  writable: boolean;
  schema: JsonSchema;
  indexed: string[];
  functions: string[];
  customTypeVersion?: number;
  /** A schema change being checked: item writes are validated against its schema too. */
  change?: { token: string; schema: JsonSchema };
  /** A custom type whose items are being deleted (`DELETE /v1/dynadata/types/{type}?deleteItems=true`). */
  deleting?: boolean;
}

const cache = createTtlCache<ResolvedType>(TYPE_CACHE_TTL_MS, 2_000);

export const builtinType = (name: string): ResolvedType | undefined => {
  if (!isBuiltinTypeName(name)) return undefined;
  const t = BUILTIN_TYPES[name];
  return {
    name: t.name,
    description: t.description,
    builtIn: true,
    writable: t.writable || (name === 'log_entries' && env().allowLogEntryWrites),
    schema: t.schema,
    indexed: t.indexed,
    functions: functionsOfType(name, []),
  };
};

const fromStored = (stored: NonNullable<Awaited<ReturnType<typeof getCustomType>>>): ResolvedType => ({
  name: stored.name,
  description: stored.description,
  builtIn: false,
  writable: stored.status !== 'deleting',
  ...(stored.status === 'deleting' ? { deleting: true } : {}),
  schema: JSON.parse(stored.schemaJson) as JsonSchema,
  indexed: stored.indexed,
  functions: functionsOfType(stored.name, stored.functions),
  customTypeVersion: stored.typeVersion,
  ...(stored.change
    ? { change: { token: stored.change.token, schema: JSON.parse(stored.change.schemaJson) as JsonSchema } }
    : {}),
});

/** The type, or 404 `not_found` for names the company does not have (same answer for malformed names). */
export const resolveType = async (
  companyId: string,
  name: string,
  options: { fresh?: boolean } = {},
): Promise<ResolvedType> => {
  const builtin = builtinType(name);
  if (builtin) return builtin;
  if (!TYPE_NAME_PATTERN.test(name)) throw new NotFoundError(`There is no Dynadata type ${name}.`);
  const key = `${companyId}/${name}`;
  const now = Date.now();
  const hit = options.fresh ? undefined : cache.get(key, now);
  if (hit) return hit;
  // Item writes validate against the record alone: its count is on the counter, which they write.
  const stored = await getCustomType(companyId, name, { count: false });
  if (!stored) {
    cache.delete(key);
    throw new NotFoundError(`There is no Dynadata type ${name}.`);
  }
  const type = fromStored(stored);
  cache.set(key, type, now);
  return type;
};

export const listTypes = async (companyId: string): Promise<ResolvedType[]> => {
  const builtins = BUILT_IN_ORDER.map((n) => builtinType(n) as ResolvedType);
  const custom = (await listCustomTypes(companyId)).map(fromStored);
  return [...builtins, ...custom.sort((a, b) => a.name.localeCompare(b.name))];
};

/** Built-in types first (in their own order), then custom types by name: the order of every type list. */
const typeOrder = (name: string): string => {
  const builtIn = BUILT_IN_ORDER.indexOf(name);
  return builtIn >= 0 ? `0${builtIn}` : `1${name}`;
};

/** A page of `GET /v1/dynadata/types`. */
export const typeSummaryPage = async (companyId: string, request: PageRequest) => {
  const { page, nextCursor } = pageById(await listTypeSummaries(companyId), (type) => type.name, request, {
    defaultLimit: MAX_LIST_PAGE,
    idPattern: TYPE_NAME_PATTERN,
    orderOf: typeOrder,
  });
  return { types: page, nextCursor };
};

/** What `GET /v1/dynadata/types` and `admin types list` show of each type. */
export const listTypeSummaries = async (companyId: string) =>
  (await listTypes(companyId)).map(({ name, description, builtIn, writable, indexed, functions }) => ({
    name,
    description,
    builtIn,
    writable,
    indexed,
    functions,
  }));

export const requireWritable = (type: ResolvedType): void => {
  if (type.writable) return;
  if (type.deleting)
    throw new AppError('type_deleting', `The type ${type.name} is being deleted; its items are read-only.`);
  if (type.name === 'log_entries') {
    throw new AppError(
      'log_entry_writes_not_allowed',
      'log_entries is the read-only audit trail of your API traffic; keep your own records in a type you own.',
    );
  }
  throw new AppError('forbidden', `Items of ${type.name} are written by the platform and are read-only.`);
};
