/**
 * Secrets a run's actions produce (a minted token): shown once, to the caller of a sync run, and never
 * written anywhere durable. An action declares its secret output fields (`secretFields`); when a step
 * succeeds, the run engine registers each secret value with a redacted stand-in, and everything the run
 * writes (step outputs, step messages, the result, the `workflow_run.finished` event and through it every
 * webhook delivery, the idempotent replay of the answer) goes through `redactSecrets` first.
 *
 * A value equal to a secret becomes its stand-in `{ redacted: true, jti?, expiresAt? }`; a text that contains
 * one (`"Bearer <token>"`, an echoed header) has it replaced by `[redacted]`. Redaction works on the JSON
 * text, so it reaches any depth without recursion.
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

/** `value` with every registered secret replaced (see the module comment); `value` itself when none occurs. */
export const redactSecrets = <T>(value: T, secrets: SecretRegistry): T => {
  if (secrets.size === 0 || value === undefined) return value;
  let text = JSON.stringify(value);
  let changed = false;
  for (const [secret, standIn] of secrets) {
    const inJson = JSON.stringify(secret).slice(1, -1);
    if (!text.includes(inJson)) continue;
    changed = true;
    // A whole string value (not an object key: a key is followed by `:`) becomes the stand-in.
    text = text.replace(new RegExp(`"${escapeRegExp(inJson)}"(?!:)`, 'g'), JSON.stringify(standIn));
    text = text.split(inJson).join('[redacted]');
  }
  return changed ? (JSON.parse(text) as T) : value;
};
