import { readFileSync } from 'node:fs';
import { UsageError } from './target';

/**
 * Operator commands of Dynadata types:
 *   types put --company ID --name N --file schema.json [--description D] [--functions a,b]
 *   types list --company ID
 *   types delete --company ID --name N [--force]   (refuses while items exist unless --force)
 *   messages reindex --company ID   (the thread backfill, `data/message-threads.ts`)
 */
export const DYNADATA_USAGE = `  types put --company ID --name N --file schema.json [--description D] [--functions a,b]
  types list --company ID
  types delete --company ID --name N [--force]   refuses while the type has items unless --force
  channels set --company ID --url U      webhook for message delivery; prints its signing secret once
  channels get --company ID
  messages reindex --company ID          put the messages stored before contact threads existed on their
                                        contact's thread (re-runnable)`;

export interface DynadataCommandValues {
  company?: string;
  name?: string;
  file?: string;
  description?: string;
  functions?: string;
  force?: boolean;
  url?: string;
}

const need = (value: string | undefined, flag: string): string => {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value.trim();
};

export const runDynadataCommand = async (
  key: string,
  values: DynadataCommandValues,
  now: Date,
): Promise<{ json: unknown; text: string } | undefined> => {
  if (!key.startsWith('types ') && !key.startsWith('channels ') && key !== 'messages reindex')
    return undefined;
  const { getCompany } = await import('../shared/data/companies');
  const companyId = need(values.company, 'company');
  if (!(await getCompany(companyId))) throw new Error(`no company ${companyId}`);
  if (key === 'messages reindex') {
    const { reindexMessageThreads } = await import('../shared/data/message-threads');
    const counts = await reindexMessageThreads(companyId);
    return {
      json: counts,
      text:
        `messages reindex (${companyId}): ${counts.indexed} messages put on their thread, ` +
        `${counts.alreadyIndexed} already on it (${counts.messages} messages)`,
    };
  }
  if (key.startsWith('channels ')) return runChannelCommand(key, companyId, values, now);
  const admin = await import('../shared/domain/dynadata/type-admin');
  switch (key) {
    case 'types put': {
      const file = need(values.file, 'file');
      let schema: unknown;
      try {
        schema = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      const functions =
        values.functions
          ?.split(',')
          .map((f) => f.trim())
          .filter((f) => f !== '') ?? [];
      const { type } = await admin.putType(
        companyId,
        { name: need(values.name, 'name'), description: values.description ?? '', schema, functions },
        now,
      );
      return { json: type, text: `stored type ${type.name} (version ${type.version})` };
    }
    case 'types list': {
      const types = await admin.listTypeSummaries(companyId);
      return {
        json: { types },
        text: types
          .map(
            (t) =>
              `${t.name}  ${t.builtIn ? 'built-in' : 'custom'}  ${t.writable ? 'writable' : 'read-only'}`,
          )
          .join('\n'),
      };
    }
    case 'types delete': {
      const { deleteType } = await import('../shared/domain/dynadata/type-deletion');
      const result = await deleteType(
        companyId,
        need(values.name, 'name'),
        { deleteItems: values.force ?? false, wait: true },
        now,
      );
      return { json: result, text: `deleted type ${result.name} (${result.deletedItems} items deleted)` };
    }
    default:
      throw new UsageError(`unknown command: ${key}`);
  }
};

const runChannelCommand = async (
  key: string,
  companyId: string,
  values: DynadataCommandValues,
  now: Date,
): Promise<{ json: unknown; text: string }> => {
  const { messageChannelOf, setMessageChannel } = await import('../shared/domain/messages/channel');
  if (key === 'channels get') {
    const { channel } = await messageChannelOf(companyId);
    return { json: channel, text: `${channel.url} (set ${channel.updatedAt})` };
  }
  if (key !== 'channels set') throw new UsageError(`unknown command: ${key}`);
  // The path `PUT /v1/messaging/channel` takes: a new channel's secret is printed once; a changed URL keeps it.
  const { env } = await import('../shared/env');
  const { webhookUrlProblem } = await import('../shared/domain/messages/webhooks');
  const given = need(values.url, 'url');
  const problem = webhookUrlProblem(given, env().outbound);
  if (problem) throw new UsageError(`--url ${problem}`);
  const { channel, secret } = await setMessageChannel(companyId, given, now);
  const url = channel.url;
  return {
    json: { ...channel, secret },
    text: secret
      ? `delivery channel of ${companyId}: ${url}\nsigning secret (Standard Webhooks): ${secret}\nStore it now: it is not shown again.`
      : `delivery channel of ${companyId}: ${url} (signing secret unchanged)`,
  };
};
