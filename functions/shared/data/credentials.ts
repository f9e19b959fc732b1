import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { type BatchEntry, getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * What the platform knows of the credentials derived from its companies' keys, in the partition
 * `CO#<companyId>#CRED`:
 * - `TOKEN#<jti>`: a token the platform minted (its id, root credential, expiry, who minted it). Never the
 *   token itself: a minted token is shown once and stored nowhere. Kept until the token can no longer be
 *   accepted (`ttl`), so an operator can revoke it by `jti` knowing its expiry.
 * - `REVOKED#<id>`: a revoked credential, by token id (`jti`) or root credential (`src`: an API key id, or
 *   `jti:<root token id>`). The authorizer refuses a token whose `jti` or `src` has such an item; the item is
 *   kept until every token it could refuse has expired (`ttl`).
 */
export const credentialsPartition = partitions.credentials;
export const mintedTokenKey = (companyId: string, jti: string) => ({
  pk: credentialsPartition(companyId),
  sk: sortKeys.mintedToken(jti),
});
export const revocationKey = (companyId: string, credentialId: string) => ({
  pk: credentialsPartition(companyId),
  sk: sortKeys.revocation(credentialId),
});

export interface MintedTokenRecord {
  jti: string;
  /** The root credential (`src` claim). */
  src: string;
  /** Epoch seconds. */
  exp: number;
  issuedAt: string;
  /** Who asked: `operator`, or `workflow_run:<runId>`. */
  mintedBy: string;
}

const MintedToken = /* @__PURE__ */ defineEntity({
  name: 'minted_token',
  key: mintedTokenKey,
  get schema() {
    return zm.object({
      jti: zm.string(),
      src: zm.string(),
      exp: zm.number(),
      issuedAt: zm.string(),
      mintedBy: zm.string(),
    }) satisfies zm.ZodMiniType<MintedTokenRecord>;
  },
});

const CredentialRevocation = /* @__PURE__ */ defineEntity({
  name: 'credential_revocation',
  key: revocationKey,
  get schema() {
    return zm.object({ credentialId: zm.string(), revokedAt: zm.string() });
  },
});

/** Records a minted token (never the token): its record lives until `acceptedUntil` (epoch seconds). */
export const recordMintedToken = async (
  companyId: string,
  token: MintedTokenRecord,
  acceptedUntil: number,
): Promise<void> => {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: MintedToken.item(mintedTokenKey(companyId, token.jti), token, { ttl: acceptedUntil }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
};

export const getMintedToken = async (
  companyId: string,
  jti: string,
): Promise<MintedTokenRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: mintedTokenKey(companyId, jti), ConsistentRead: true }),
  );
  return Item ? MintedToken.decode(Item) : undefined;
};

const revocationItem = (companyId: string, credentialId: string, revokedAt: Date, keepUntil: number) =>
  CredentialRevocation.item(
    revocationKey(companyId, credentialId),
    { credentialId, revokedAt: revokedAt.toISOString() },
    { ttl: keepUntil },
  );

/**
 * The transaction item that revokes a credential (the API key module revokes a key and its derived tokens in
 * one transaction). A second revocation keeps the first one's time.
 */
export const revocationPutItem = (
  companyId: string,
  credentialId: string,
  revokedAt: Date,
  keepUntil: number,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: revocationItem(companyId, credentialId, revokedAt, keepUntil),
  },
});

/** Revokes a credential by id until `keepUntil` (epoch seconds); revoking twice keeps the first time. */
export const revokeCredential = async (
  companyId: string,
  credentialId: string,
  revokedAt: Date,
  keepUntil: number,
): Promise<void> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: revocationItem(companyId, credentialId, revokedAt, keepUntil),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

const revocationEntry = (companyId: string, credentialId: string): BatchEntry<string> => ({
  key: revocationKey(companyId, credentialId),
  decode: (item) => CredentialRevocation.decode(item).credentialId,
});

/** Which of the credential ids are revoked: one `BatchGetItem`, whatever the number of ids (at most 100). */
export const revokedCredentials = async (
  companyId: string,
  credentialIds: readonly string[],
): Promise<Set<string>> => {
  const unique = [...new Set(credentialIds)];
  const found = await getItemsByKey(unique.map((id) => revocationEntry(companyId, id)));
  return new Set(found.filter((id): id is string => id !== undefined));
};
