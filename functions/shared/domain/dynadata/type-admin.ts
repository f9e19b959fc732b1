import { queryItemsPage } from '../../data/dynadata-item-queries';
import {
  beginTypeChange,
  ChangeBreaksItemsError,
  endTypeChange,
  getCustomType,
  IndexChangeWithItemsError,
  listCustomTypes,
  putCustomType,
  type StoredTypeDefinition,
  TypeChangedError,
  type TypeStatus,
} from '../../data/dynadata-types';
import { AppError, type FieldError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { ulid } from '../../ids';
import { companyLimits } from '../company-limits';
import './builtin-functions';
import { isBuiltinTypeName } from './builtin-types';
import { registeredFunctionNames } from './functions';
import { type JsonSchema, normaliseTypeSchema, validateAgainst } from './json-schema';
import { builtinType, TYPE_NAME_PATTERN } from './types';

/**
 * Defining, reading and deleting a company's Dynadata types: `GET`/`PUT`/`DELETE /v1/dynadata/types/{type}`
 * and the operator CLI's `types` commands run these same functions. A schema change that stored items would
 * fail is refused (`docs/decisions/0027-type-changes-checked-against-items.md`).
 */

/** A type as `GET /v1/dynadata/types/{type}` answers it under `type`. */
export interface TypeDefinition {
  name: string;
  description: string;
  builtIn: boolean;
  /** The JSON Schema as `PUT` takes it (with `x-indexed` when a field is indexed). */
  schema: JsonSchema;
  indexed: string[];
  functions: string[];
  /** Bumped by every `PUT`; null for a built-in type. */
  version: number | null;
  status: TypeStatus;
  deletedItems: number;
  /** Items still to delete while `deleting`; null while `active`. */
  remainingItems: number | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Time one API request may spend checking stored items against a changed schema. */
export const TYPE_CHANGE_CHECK_BUDGET_MS = 6_000;
/** Items named in the sample of a refused change. */
const BREAKING_SAMPLE_SIZE = 5;
const PAGE = 200;

const withIndexed = (schema: JsonSchema, indexed: string[]): JsonSchema =>
  indexed.length > 0 ? { ...schema, 'x-indexed': indexed } : schema;

const customDefinition = (stored: StoredTypeDefinition): TypeDefinition => ({
  name: stored.name,
  description: stored.description,
  builtIn: false,
  schema: withIndexed(JSON.parse(stored.schemaJson) as JsonSchema, stored.indexed),
  indexed: stored.indexed,
  functions: stored.functions,
  version: stored.typeVersion,
  status: stored.status,
  deletedItems: stored.deletedItems,
  remainingItems: stored.status === 'deleting' ? Math.max(0, stored.itemCount) : null,
  createdAt: stored.createdAt,
  updatedAt: stored.updatedAt,
});

export const readOnly = (name: string) =>
  new AppError('builtin_type_read_only', `${name} is a built-in type: its definition cannot be changed.`);

export const noSuchType = (name: string) => new NotFoundError(`There is no Dynadata type ${name}.`);

/** The definition of a type of the company (built-in or custom), or 404. */
export const getTypeDefinition = async (companyId: string, name: string): Promise<TypeDefinition> => {
  const builtin = builtinType(name);
  if (builtin) {
    return {
      name: builtin.name,
      description: builtin.description,
      builtIn: true,
      schema: withIndexed(builtin.schema, builtin.indexed),
      indexed: builtin.indexed,
      functions: builtin.functions,
      version: null,
      status: 'active',
      deletedItems: 0,
      remainingItems: null,
      createdAt: null,
      updatedAt: null,
    };
  }
  const stored = TYPE_NAME_PATTERN.test(name) ? await getCustomType(companyId, name) : undefined;
  if (!stored) throw noSuchType(name);
  return customDefinition(stored);
};

/** `If-Match` names the tag of the type as its GET answers it (412; a missing type matches nothing). */
export const requireMatch = (ifMatch: string | undefined, current: StoredTypeDefinition | undefined) => {
  if (ifMatch === undefined) return;
  if (!current || !ifMatchHolds(ifMatch, etagOf({ type: customDefinition(current) })))
    throw new AppError('precondition_failed', 'The type does not match If-Match; read it again.');
};

const deletingConflict = (name: string) =>
  new AppError(
    'type_deleting',
    `The type ${name} is being deleted (GET shows how far); define it again once it is gone.`,
  );

/** Fields a schema declares: properties at any depth (under `items` and `additionalProperties` too). */
export const fieldCount = (schema: unknown): number => {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 0;
  const node = schema as Record<string, unknown>;
  const properties =
    typeof node.properties === 'object' && node.properties !== null
      ? Object.values(node.properties as Record<string, unknown>)
      : [];
  return (
    properties.length +
    properties.reduce<number>((n, sub) => n + fieldCount(sub), 0) +
    fieldCount(node.items) +
    fieldCount(node.additionalProperties)
  );
};

export interface PointerPrefixes {
  /** Prefix of pointers into the schema (`/body/schema` for the API, empty for a schema file). */
  schema: string;
  /** Pointer of the function list (`/body/functions` for the API). */
  functions: string;
}

const CLI_POINTERS: PointerPrefixes = { schema: '', functions: '/functions' };

const definitionProblems = async (
  input: { schema: unknown; functions: string[] },
  pointers: PointerPrefixes,
) => {
  const { schema, problems, indexed } = await normaliseTypeSchema(input.schema);
  const out: FieldError[] = problems.map((p) => ({
    pointer: p.pointer === '/' ? pointers.schema || '/' : `${pointers.schema}${p.pointer}`,
    message: p.message,
  }));
  const known = registeredFunctionNames();
  input.functions.forEach((f, i) => {
    if (!known.includes(f))
      out.push({ pointer: `${pointers.functions}/${i}`, message: `unknown function ${f}` });
  });
  return { schema, problems: out, indexed };
};

/** The first violation of each stored item the schema refuses: their count and a sample of them. */
interface BreakingItems {
  count: number;
  sample: { _id: string; pointer: string; message: string }[];
  complete: boolean;
}

const itemsBrokenBy = async (
  companyId: string,
  name: string,
  schema: JsonSchema,
  deadline: number,
): Promise<BreakingItems> => {
  const found: BreakingItems = { count: 0, sample: [], complete: true };
  let startKey: Record<string, unknown> | undefined;
  do {
    if (Date.now() > deadline) return { ...found, complete: false };
    const page = await queryItemsPage(companyId, name, {
      forward: true,
      limit: PAGE,
      ...(startKey ? { startKey } : {}),
    });
    for (const { item } of page.items) {
      const [first] = await validateAgainst(schema, item.data, '');
      if (!first) continue;
      found.count++;
      if (found.sample.length < BREAKING_SAMPLE_SIZE)
        found.sample.push({ _id: item._id, pointer: first.pointer || '/', message: first.message });
    }
    startKey = page.lastKey;
  } while (startKey);
  return found;
};

const breakingItems = (name: string, count: number, complete: boolean, sample: BreakingItems['sample']) =>
  new AppError(
    'type_change_breaks_items',
    `${count}${complete ? '' : ' or more'} stored items of ${name} would fail the new ` +
      'schema; change or delete them first, or make the change additive.',
    { extensions: { breakingItems: count, complete, sample } },
  );

const refuseBreakingChange = async (
  companyId: string,
  name: string,
  schema: JsonSchema,
  checkBudgetMs: number,
) => {
  const broken = await itemsBrokenBy(companyId, name, schema, Date.now() + checkBudgetMs);
  if (broken.count > 0) throw breakingItems(name, broken.count, broken.complete, broken.sample);
  if (!broken.complete) {
    throw new AppError(
      'type_change_breaks_items',
      `The stored items of ${name} could not all be checked against the new schema within one request; ` +
        'the operator CLI (types put) checks them without a time limit.',
      { extensions: { breakingItems: 0, complete: false, sample: [] } },
    );
  }
};

/**
 * Creates a custom type or stores the next version of its definition (what `PUT /v1/dynadata/types/{type}`
 * and `admin types put` take). A changed schema of a type with items is checked against every stored item
 * first; the write holds only while the type still has the version (and item count) the check read.
 */
export const putType = async (
  companyId: string,
  input: { name: string; description: string; schema: unknown; functions: string[] },
  now: Date,
  options: { ifMatch?: string | undefined; pointers?: PointerPrefixes; checkBudgetMs?: number } = {},
): Promise<{ type: TypeDefinition; created: boolean }> => {
  const pointers = options.pointers ?? CLI_POINTERS;
  if (isBuiltinTypeName(input.name)) throw readOnly(input.name);
  if (!TYPE_NAME_PATTERN.test(input.name)) {
    throw new ValidationError([
      { pointer: '/name', message: 'must be 1 to 63 lowercase letters, digits or _, starting with a letter' },
    ]);
  }
  const { schema, problems, indexed } = await definitionProblems(input, pointers);
  if (problems.length > 0) {
    throw new ValidationError(
      problems,
      `The schema is not valid:\n${problems.map((p) => `  ${p.pointer}: ${p.message}`).join('\n')}`,
    );
  }
  const limits = await companyLimits(companyId);
  const fields = fieldCount(schema);
  if (fields > limits.dynadataFieldsPerType) {
    throw new AppError(
      'dynadata_field_limit_reached',
      `The schema declares ${fields} fields; the plan allows ${limits.dynadataFieldsPerType} per type.`,
      { extensions: { limit: limits.dynadataFieldsPerType, fields } },
    );
  }
  const previous = await getCustomType(companyId, input.name);
  if (previous?.status === 'deleting') throw deletingConflict(input.name);
  requireMatch(options.ifMatch, previous);
  if (!previous && (await listCustomTypes(companyId)).length >= limits.dynadataTypes) {
    throw new AppError(
      'dynadata_type_limit_reached',
      `The plan allows ${limits.dynadataTypes} custom Dynadata types; delete one first.`,
      { extensions: { limit: limits.dynadataTypes } },
    );
  }
  const { 'x-indexed': _indexed, ...stored } = schema;
  const schemaJson = JSON.stringify(stored);
  const definition = {
    name: input.name,
    description: input.description,
    schemaJson,
    indexed,
    functions: input.functions,
  };
  if (previous && previous.itemCount > 0) {
    // Items written before an index change carry no (or another) index entry: refuse while there are items.
    if (JSON.stringify(previous.indexed) !== JSON.stringify(indexed)) {
      const error = new IndexChangeWithItemsError(previous.itemCount, previous.indexed, indexed);
      throw new ValidationError(
        [{ pointer: `${pointers.schema}/x-indexed`, message: error.message }],
        error.message,
      );
    }
  }
  const checked = previous !== undefined && previous.itemCount > 0 && previous.schemaJson !== schemaJson;
  try {
    if (!checked) {
      const saved = await putCustomType(companyId, definition, previous, now);
      return { type: customDefinition(saved), created: !previous };
    }
    const saved = await checkedChange(companyId, definition, previous, now, options.checkBudgetMs);
    return { type: customDefinition(saved), created: false };
  } catch (error) {
    if (error instanceof TypeChangedError) {
      throw new AppError(
        'conflict',
        `The type ${input.name} changed while this change was checked (another definition, or items written); ` +
          'read it and try again.',
      );
    }
    throw error;
  }
};

/**
 * Stores a schema change of a type with items, checked against them: the change is marked on the type first,
 * so item writes from then on are validated against it too and count themselves when they fail it; then every
 * stored item is checked; the change is stored only if neither found an item it breaks. The mark goes with the
 * change, or when the change is refused.
 */
const checkedChange = async (
  companyId: string,
  definition: Parameters<typeof putCustomType>[1],
  previous: StoredTypeDefinition,
  now: Date,
  checkBudgetMs = Number.POSITIVE_INFINITY,
): Promise<StoredTypeDefinition> => {
  const token = ulid(now.getTime());
  const change = { typeVersion: previous.typeVersion, token, schemaJson: definition.schemaJson };
  if (!(await beginTypeChange(companyId, definition.name, change, now))) {
    throw new AppError(
      'conflict',
      `The type ${definition.name} changed, or another change of it is being checked; read it and try again.`,
    );
  }
  let stored = false;
  try {
    await refuseBreakingChange(
      companyId,
      definition.name,
      JSON.parse(definition.schemaJson) as JsonSchema,
      checkBudgetMs,
    );
    const saved = await putCustomType(companyId, definition, previous, now, token);
    stored = true;
    return saved;
  } catch (error) {
    if (error instanceof ChangeBreaksItemsError) throw breakingItems(definition.name, error.breaks, true, []);
    throw error;
  } finally {
    if (!stored) await endTypeChange(companyId, definition.name, token);
  }
};

export { listTypeSummaries } from './types';
