/** Every capability a credential can hold. One list: routes, API keys and JWTs all use these names. */
export const SCOPES = [
  'company:read',
  'messages:send',
  'messages:report',
  'dynadata:read',
  'dynadata:write',
  'dynadata:execute',
  'dynadata:admin',
  'storage:read',
  'storage:write',
  'transcriptions:read',
  'transcriptions:write',
  'transcodes:read',
  'transcodes:write',
  'speech:read',
  'speech:write',
  'usage:read',
  'usage:write',
  'workflows:run',
  'workflows:read',
  'workflows:write',
  'workflows:admin',
  'webhooks:read',
  'webhooks:write',
  'keys:admin',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Parses a comma-separated scope list (as carried in authorizer context); unknown names are returned apart. */
export const parseScopeList = (value: string): { scopes: Scope[]; unknown: string[] } => {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return { scopes: names.filter(isScope), unknown: names.filter((s) => !isScope(s)) };
};

/**
 * Each scope's bit in a stored scope set (`encodeScopeSet`): fixed once given, whatever the order of `SCOPES`,
 * so a set stored before a scope was added reads the same after. A new scope takes the next free bit.
 */
const SCOPE_BITS: Record<Scope, number> = {
  'company:read': 0,
  'messages:send': 1,
  'dynadata:read': 2,
  'dynadata:write': 3,
  'dynadata:execute': 4,
  'dynadata:admin': 5,
  'storage:read': 6,
  'storage:write': 7,
  'transcriptions:read': 8,
  'transcriptions:write': 9,
  'transcodes:read': 10,
  'transcodes:write': 11,
  'speech:read': 12,
  'speech:write': 13,
  'usage:read': 14,
  'usage:write': 15,
  'workflows:run': 16,
  'workflows:read': 17,
  'workflows:write': 18,
  'workflows:admin': 19,
  'webhooks:read': 20,
  'webhooks:write': 21,
  'keys:admin': 22,
  'messages:report': 23,
};

/**
 * A set of scopes as one number (a bit each, `SCOPE_BITS`): what a stored item keeps instead of the names,
 * which take about 14 bytes each (24 scopes: a few bytes against about 350, so an item keeps under 1 KB).
 */
export const encodeScopeSet = (scopes: readonly string[]): number =>
  [...new Set(scopes.filter(isScope))].reduce((mask, scope) => mask + 2 ** SCOPE_BITS[scope], 0);

/** The scopes of a stored set, in `SCOPES` order. */
export const decodeScopeSet = (mask: number): Scope[] =>
  SCOPES.filter((scope) => Math.floor(mask / 2 ** SCOPE_BITS[scope]) % 2 === 1);
