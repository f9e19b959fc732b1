import { CLOCK_SKEW_SECONDS, JWT_MAX_LIFETIME_SECONDS } from '../auth/jwt-claims';
import { acceptedUntilSeconds, type MintedToken, type MintInput, mintJwt } from '../auth/jwt-mint';
import { currentSigningKey, loadKeySet } from '../auth/signing-keys';
import { revokeApiKey } from '../data/api-keys';
import { getMintedToken, recordMintedToken, revokeCredential } from '../data/credentials';
import { NotFoundError } from '../errors';

/**
 * The token lifecycle. `issueToken` is the one way a token is minted (the workflow action and the operator
 * CLI): the rules of `auth/jwt-mint.ts`, signed with the current key, then recorded without the token itself
 * (`data/credentials.ts`). A minted token is a secret shown once to whoever asked.
 *
 * Revocation: revoking an API key revokes every token derived from it (their `src`); an operator revokes one
 * token by `jti` (and with it the tokens derived from it when it is a root the operator minted). The
 * authorizer re-reads revocations at most `AUTHORIZER_CACHE_TTL_SECONDS` (default 30 s, at most 60 s) after
 * it last read them: that is the window in which a revoked token may still be accepted.
 */
export const issueToken = async (input: MintInput, mintedBy: string, now: Date): Promise<MintedToken> => {
  const minted = await mintJwt(input, currentSigningKey(await loadKeySet()), now);
  const exp = Number(minted.claims.exp);
  await recordMintedToken(
    input.companyId,
    { jti: minted.jti, src: minted.src, exp, issuedAt: now.toISOString(), mintedBy },
    acceptedUntilSeconds(exp),
  );
  return minted;
};

/** Revokes one minted token by id; kept only until the token itself expires. */
export const revokeToken = async (companyId: string, jti: string, now: Date) => {
  const token = await getMintedToken(companyId, jti);
  if (!token)
    throw new NotFoundError('No token with this jti was minted for the company, or it has expired.');
  const until = acceptedUntilSeconds(token.exp);
  await revokeCredential(companyId, jti, now, until);
  // A root the operator minted also ends the tokens derived from it (they name it as their `src`).
  if (token.src === `jti:${jti}`) await revokeCredential(companyId, token.src, now, until);
  return { jti, expiresAt: new Date(token.exp * 1000).toISOString(), revokedAt: now.toISOString() };
};

/** Revokes an API key and every token derived from it (each lives at most the longest lifetime). */
export const revokeKeyAndDerivedTokens = (companyId: string, keyId: string, now: Date) =>
  revokeApiKey(
    companyId,
    keyId,
    now,
    Math.floor(now.getTime() / 1000) + JWT_MAX_LIFETIME_SECONDS + 2 * CLOCK_SKEW_SECONDS,
  );
