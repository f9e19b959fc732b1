import { apiKeyPage, findCompanyApiKey, issueApiKey, revokeCompanyApiKey } from '../domain/api-keys';
import { getCompanyProfile } from '../domain/companies';
import type { RouteHandler } from '../http/router';

/** What the company's operations do: its profile and its API keys. */
export const getSelf: RouteHandler<'getSelf'> = async ({ auth, now }) => ({
  body: { company: await getCompanyProfile(auth, now) },
});

export const listApiKeys: RouteHandler<'listApiKeys'> = async ({ auth, query, now }) => ({
  body: await apiKeyPage(auth.companyId, query, now),
});

export const createApiKey: RouteHandler<'createApiKey'> = async ({ auth, body, now }) => ({
  body: await issueApiKey(auth.companyId, body, { kind: 'caller', auth }, now),
});

export const getApiKey: RouteHandler<'getApiKey'> = async ({ auth, params, now }) => ({
  body: { key: await findCompanyApiKey(auth.companyId, params.id, now) },
});

export const revokeApiKey: RouteHandler<'revokeApiKey'> = async ({ auth, params, now }) => ({
  body: { deleted: true, id: params.id, key: await revokeCompanyApiKey(auth.companyId, params.id, now) },
});
