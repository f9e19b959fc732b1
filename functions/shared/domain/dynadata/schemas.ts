import { AppError } from '../../errors';
import { resolveType } from './types';
import { SCHEMA_LIBRARIES, zodSourceOf } from './zod-source';

/** `GET …/schema` (JSON Schema) and `GET …/schema/<library>` (the same schema as library source text). */
export const typeSchema = async (companyId: string, typeName: string): Promise<Record<string, unknown>> => {
  const type = await resolveType(companyId, typeName);
  return {
    ...type.schema,
    ...(type.indexed.length > 0 ? { 'x-indexed': type.indexed } : {}),
  };
};

export const librarySchema = async (
  companyId: string,
  typeName: string,
  library: string,
): Promise<{ type: string; library: 'zod'; source: string }> => {
  if (!(SCHEMA_LIBRARIES as readonly string[]).includes(library)) {
    throw new AppError(
      'not_found',
      `There is no schema format ${library}. Supported validation libraries: ${SCHEMA_LIBRARIES.join(', ')}.`,
      { extensions: { supportedLibraries: [...SCHEMA_LIBRARIES] } },
    );
  }
  const type = await resolveType(companyId, typeName);
  return { type: type.name, library: 'zod', source: zodSourceOf(type.name, type.schema) };
};
