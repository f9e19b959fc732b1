import { sealWith } from '../../aws/kms';
import { generateDataKey } from '../../aws/kms-data-keys';
import {
  countWorkflowSecrets,
  deleteWorkflowSecret,
  getWorkflowSecret,
  listWorkflowSecrets,
  SecretChangedError,
  type StoredWorkflowSecret,
  writeWorkflowSecret,
} from '../../data/workflow-secrets';
import { AppError, NotFoundError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { SECRET_NAME_PATTERN } from '../../types/workflows';
import { type Page, type PageRequest, pageById } from '../pages';
import { aadOf, contextOf } from './vault-reveal';

/**
 * Workflow secrets: values a company stores once (`PUT /v1/workflows/secrets/{name}`, scope `workflows:admin`)
 * and its workflows' HTTP steps use as `{{ secrets.NAME }}` in their URL, headers and body. Write-only: every
 * read (`GET`, the list, MCP) answers the name, description, version and times, never the value; a run
 * decrypts the values its definition references (`revealSecrets`) and redacts them from everything it
 * writes (`secrets.ts`).
 *
 * Envelope encryption (`docs/decisions/0029-workflow-secrets-envelope-encryption.md`): each value is sealed
 * with AES-256-GCM under a data key of its own, stored wrapped by the platform's key (KMS on AWS, the local
 * key in the local stack), with the company and the name as encryption context and as authenticated data, so
 * a sealed value moved to another record or company does not open.
 */
export const MAX_WORKFLOW_SECRETS = 100;

export interface SecretSummary {
  name: string;
  description: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

const summaryOf = (stored: StoredWorkflowSecret): SecretSummary => ({
  name: stored.name,
  description: stored.description,
  version: stored.version,
  createdAt: stored.createdAt,
  updatedAt: stored.updatedAt,
});

const noSuchSecret = (name: string) => new NotFoundError(`There is no workflow secret ${name}.`);

/** `If-Match` names the tag of the secret as its GET answers it (412; a missing secret matches nothing). */
const requireMatch = (ifMatch: string | undefined, current: StoredWorkflowSecret | undefined) => {
  if (ifMatch === undefined) return;
  if (!current || !ifMatchHolds(ifMatch, etagOf({ secret: summaryOf(current) })))
    throw new AppError('precondition_failed', 'The secret does not match If-Match; read it again.');
};

const changedMeanwhile = (name: string) =>
  new AppError('conflict', `The secret ${name} was changed by another request; read it and try again.`);

/** Stores a secret's value (a new secret: 201; a new value: 200, version bumped); answers its summary. */
export const putWorkflowSecret = async (
  companyId: string,
  name: string,
  input: { value: string; description?: string | undefined },
  now: Date,
  options: { ifMatch?: string | undefined } = {},
): Promise<{ secret: SecretSummary; created: boolean }> => {
  const current = await getWorkflowSecret(companyId, name);
  requireMatch(options.ifMatch, current);
  if (!current && (await countWorkflowSecrets(companyId, MAX_WORKFLOW_SECRETS)) >= MAX_WORKFLOW_SECRETS) {
    throw new AppError(
      'workflow_secret_limit_reached',
      `A company holds at most ${MAX_WORKFLOW_SECRETS} workflow secrets; delete one first.`,
      { extensions: { limit: MAX_WORKFLOW_SECRETS } },
    );
  }
  const context = contextOf(companyId, name);
  const key = await generateDataKey(context);
  const sealed = sealWith(key.plaintext, Buffer.from(input.value, 'utf8'), aadOf(context));
  key.plaintext.fill(0);
  const stamp = now.toISOString();
  const stored: StoredWorkflowSecret = {
    name,
    description: input.description ?? current?.description ?? '',
    sealed: sealed.toString('base64'),
    wrappedKey: key.wrapped.toString('base64'),
    version: (current?.version ?? 0) + 1,
    createdAt: current?.createdAt ?? stamp,
    updatedAt: stamp,
  };
  try {
    await writeWorkflowSecret(companyId, stored, current?.version);
  } catch (error) {
    if (error instanceof SecretChangedError) throw changedMeanwhile(name);
    throw error;
  }
  return { secret: summaryOf(stored), created: !current };
};

export const getWorkflowSecretSummary = async (companyId: string, name: string): Promise<SecretSummary> => {
  const stored = SECRET_NAME_PATTERN.test(name) ? await getWorkflowSecret(companyId, name) : undefined;
  if (!stored) throw noSuchSecret(name);
  return summaryOf(stored);
};

export const listWorkflowSecretPage = async (
  companyId: string,
  request: PageRequest,
): Promise<{ secrets: SecretSummary[]; nextCursor: string | null }> => {
  const { page, nextCursor }: Page<StoredWorkflowSecret> = pageById(
    await listWorkflowSecrets(companyId),
    (s) => s.name,
    request,
    { defaultLimit: MAX_WORKFLOW_SECRETS, idPattern: SECRET_NAME_PATTERN },
  );
  return { secrets: page.map(summaryOf), nextCursor };
};

export const deleteWorkflowSecretNamed = async (
  companyId: string,
  name: string,
  options: { ifMatch?: string | undefined } = {},
): Promise<void> => {
  const current = SECRET_NAME_PATTERN.test(name) ? await getWorkflowSecret(companyId, name) : undefined;
  if (!current) throw noSuchSecret(name);
  requireMatch(options.ifMatch, current);
  try {
    await deleteWorkflowSecret(companyId, name, current.version);
  } catch (error) {
    if (error instanceof SecretChangedError) throw changedMeanwhile(name);
    throw error;
  }
};
