/**
 * Secrets a run's actions produce (a minted token): shown once, to the caller of a sync run, and never
 * written anywhere durable. An action declares its secret output fields (`secretFields`); when a step
 * succeeds, the run engine registers each secret value with a redacted stand-in, and everything the run
 * writes (step outputs, step messages, the result, the `workflow_run.finished` event and through it every
 * webhook delivery, the idempotent replay of the answer) goes through `redactSecrets` first.
 *
 * A value equal to a secret becomes its stand-in `{ redacted: true, jti?, expiresAt? }`; a text that contains
 * one (`"Bearer <token>"`, an echoed header) has it replaced by `[redacted]`. Tokens the platform signed
 * that reach a run by another way (another run's token in the input, a remote echoing one) are redacted the
 * same way, recognised by their signed header. Redaction works on the JSON text, so it reaches any depth
 * without recursion.
 */
export type SecretRegistry = Map<string, Record<string, unknown>>;

/** Fields of a secret's output copied into its stand-in: what identifies the secret without revealing it. */
const DESCRIBING_FIELDS = ['jti', 'expiresAt'] as const;

/** A secret shorter than this is not something the platform mints: never registered. */
const MIN_SECRET_LENGTH = 16;

export const newSecretRegistry = (): SecretRegistry => new Map();

/** The secrets an output holds in its declared fields, each with its stand-in. */
export const secretsOf = (
  output: unknown,
  fields: readonly string[] | undefined,
): [string, Record<string, unknown>][] => {
  if (!fields || output === null || typeof output !== 'object' || Array.isArray(output)) return [];
  const record = output as Record<string, unknown>;
  const standIn: Record<string, unknown> = { redacted: true };
  for (const name of DESCRIBING_FIELDS) if (typeof record[name] === 'string') standIn[name] = record[name];
  return fields.flatMap((field) => {
    const value = record[field];
    return typeof value === 'string' && value.length >= MIN_SECRET_LENGTH ? [[value, standIn] as const] : [];
  }) as [string, Record<string, unknown>][];
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A compact JWS shaped like the tokens the platform signs: a JSON header, a JSON payload, a signature. */
const TOKEN_SHAPED = /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+/g;

const decodeSegment = (segment: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The stand-in of a token the platform signed (an ES256 header naming its key), wherever it comes from: a
 * token minted by another run and passed in as input, or echoed back by a remote. `undefined` for anything
 * else shaped like a JWS (a tenant's own tokens of other issuers are its data).
 */
const standInOfPlatformToken = (token: string): Record<string, unknown> | undefined => {
  const [head, body] = token.split('.');
  const header = decodeSegment(head);
  if (header?.alg !== 'ES256' || typeof header.kid !== 'string') return undefined;
  const claims = decodeSegment(body) ?? {};
  return {
    redacted: true,
    ...(typeof claims.jti === 'string' ? { jti: claims.jti } : {}),
    ...(typeof claims.exp === 'number' && Number.isFinite(claims.exp)
      ? { expiresAt: new Date(claims.exp * 1000).toISOString() }
      : {}),
  };
};

/**
 * `value` with every registered secret, and every token the platform signed, replaced (see the module
 * comment); `value` itself when none occurs. `registeredOnly`: the registered secrets alone (what the caller
 * of a sync run must not see though the tokens its steps minted are shown to it: the workflow secrets).
 */
export const redactSecrets = <T>(value: T, secrets: SecretRegistry, registeredOnly = false): T => {
  if (value === undefined || (registeredOnly && secrets.size === 0)) return value;
  let text = JSON.stringify(value);
  const found = new Map(secrets);
  for (const [token] of registeredOnly ? [] : text.matchAll(TOKEN_SHAPED)) {
    const standIn = found.has(token) ? undefined : standInOfPlatformToken(token);
    if (standIn) found.set(token, standIn);
  }
  let changed = false;
  for (const [secret, standIn] of found) {
    const inJson = JSON.stringify(secret).slice(1, -1);
    if (!text.includes(inJson)) continue;
    changed = true;
    // A whole string value becomes the stand-in: its opening quote follows `:`, `,`, `[` or nothing (a quote
    // inside a string is escaped, `\"`), and an object key (followed by `:`) stays a string.
    text = text.replace(
      new RegExp(`(?<=^|[:,[])"${escapeRegExp(inJson)}"(?!:)`, 'g'),
      JSON.stringify(standIn),
    );
    text = text.split(inJson).join('[redacted]');
  }
  return changed ? (JSON.parse(text) as T) : value;
};
