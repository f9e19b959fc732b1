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
