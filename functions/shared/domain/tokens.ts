import { acceptedUntilSeconds, type MintedToken, type MintInput, mintJwt } from '../auth/jwt-mint';
import { currentSigningKey, loadKeySet } from '../auth/signing-keys';
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
  // Tokens derived from it name it among their ancestors (`anc`), and expire no later than it does.
  await revokeCredential(companyId, jti, now, until);
  // A root the operator minted is also their `src`.
  if (token.src === `jti:${jti}`) await revokeCredential(companyId, token.src, now, until);
  return { jti, expiresAt: new Date(token.exp * 1000).toISOString(), revokedAt: now.toISOString() };
};

/** Revokes tokens minted that will never be shown (a sync run handed off after minting them). */
export const revokeMintedTokens = async (
  companyId: string,
  tokens: readonly { jti: string; expiresAt: string }[],
  now: Date,
): Promise<void> => {
  for (const { jti, expiresAt } of tokens) {
    await revokeCredential(
      companyId,
      jti,
      now,
      acceptedUntilSeconds(Math.ceil(Date.parse(expiresAt) / 1000)),
    );
  }
};
