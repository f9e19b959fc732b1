import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  type ServiceInputTypes,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createContact, createTenant } from './support';
import { savedWorkflow } from './workflow-support';

/**
 * A transaction of one write action is sent as that single-item write (decision 0052). These run the data
 * and domain modules in this process against the stack's DynamoDB Local, so a refused write is the real
 * answer of DynamoDB Local to a plain conditional write, read the way callers read a cancelled transaction.
 */
const MESSAGE_ID = '01jd3xq0a6m5r6y1z8k7w2v4bn';

const storedMessage = async () => {
  const t = await createTenant();
  const contactId = await createContact({ 'x-api-key': t.apiKey }, 'Ada');
  const { insertItem, getStoredItem } = await import('../../functions/shared/data/dynadata-items');
  const stamp = new Date().toISOString();
  const data = { contactId, type: 'text', body: { text: 'Old' }, status: 'sent', attempts: 1 };
  await insertItem(
    t.companyId,
    'messages',
    {
      _id: MESSAGE_ID,
      _version: 1,
      createdAt: stamp,
      updatedAt: stamp,
      data,
      size: Buffer.byteLength(JSON.stringify(data)),
    },
    {},
  );
  const stored = await getStoredItem(t.companyId, 'messages', MESSAGE_ID);
  if (!stored) throw new Error('message not stored');
  return { companyId: t.companyId, stored };
};

/** Records the commands the document clients send (`ddb` and the one of the one-action writes). */
const recordCommands = (before?: (command: unknown) => Promise<void>) => {
  const original = DynamoDBDocumentClient.prototype.send;
  const sent: unknown[] = [];
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (
    this: DynamoDBDocumentClient,
    command: unknown,
  ) {
    sent.push(command);
    await before?.(command);
    return original.apply(this, [command] as never);
  } as never);
  return sent;
};

/** The message's item write (the one-action transaction, or the plain write it is sent as). */
const isMessageWrite = (command: unknown) => {
  const input = (command as { input?: ServiceInputTypes }).input as
    | { Item?: { sk?: string }; TransactItems?: { Put?: { Item?: { sk?: string } } }[] }
    | undefined;
  const put = command instanceof PutCommand ? input?.Item : input?.TransactItems?.[0]?.Put?.Item;
  return (
    (command instanceof PutCommand || command instanceof TransactWriteCommand) &&
    !!put?.sk?.includes(MESSAGE_ID)
  );
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('one-action writes', () => {
  it("write a message's same-size change as one PutItem, and refuse a stale one as the item conflict", async () => {
    const { companyId, stored } = await storedMessage();
    const { replaceItem, getStoredItem, ItemWriteConflictError } = await import(
      '../../functions/shared/data/dynadata-items'
    );
    const next = (attempts: number, version: number) => ({
      ...stored,
      _version: version,
      data: { ...stored.data, attempts },
    });
    const sent = recordCommands();
    await replaceItem(companyId, 'messages', stored, next(2, 2), {});
    expect(sent.filter(isMessageWrite)).toEqual([expect.any(PutCommand)]);
    expect((await getStoredItem(companyId, 'messages', MESSAGE_ID))?.data.attempts).toBe(2);

    const refused = await replaceItem(companyId, 'messages', stored, next(3, 2), {}).catch((e) => e);
    expect(refused).toBeInstanceOf(ItemWriteConflictError);
    expect(refused.reason).toBe('item');
    const after = await getStoredItem(companyId, 'messages', MESSAGE_ID);
    expect(after).toMatchObject({ _version: 2, data: { attempts: 2 } });
  });

  it('answer a refused write with the item as it was, when the write asks for it (ReturnValuesOnConditionCheckFailure)', async () => {
    const { companyId } = await storedMessage();
    const { sendTransaction, cancellationReasons, transactUnlessFailed } = await import(
      '../../functions/shared/data/transactions'
    );
    const { tableName } = await import('../../functions/shared/data/client');
    const { getStoredItem, itemKey } = await import('../../functions/shared/data/dynadata-items');
    const key = itemKey(companyId, 'messages', MESSAGE_ID);
    const before = await getStoredItem(companyId, 'messages', MESSAGE_ID);
    const put = {
      Put: {
        TableName: tableName(),
        Item: { ...key, replaced: true },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
    const error = await sendTransaction(new TransactWriteCommand({ TransactItems: [put] })).catch((e) => e);
    const reasons = cancellationReasons(error);
    expect(reasons).toHaveLength(1);
    expect(reasons?.[0]?.Code).toBe('ConditionalCheckFailed');
    expect(reasons?.[0]?.Item).toMatchObject(marshall({ ...key, _version: 1 }));
    expect(await transactUnlessFailed([put], 0)).toBe(false);
    expect(await getStoredItem(companyId, 'messages', MESSAGE_ID)).toEqual(before);
  });

  it('answer a workflow delete that lost the race to a save with the same 409 conflict problem', async () => {
    const t = await createTenant();
    const doc = {
      id: 'raced',
      name: 'Raced',
      steps: [{ id: 'token', action: 'actions/security/auth/jwt/generate', with: {} }],
    };
    expect(await savedWorkflow(t.companyId, doc)).toEqual({ id: 'raced', version: 1 });
    const { ddb, tableName } = await import('../../functions/shared/data/client');
    const { partitions, sortKeys } = await import('../../functions/shared/data/keys');
    const pk = partitions.workflows(t.companyId);
    // A company whose workflows were saved before they were counted: the delete is the tombstone alone.
    await ddb.send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk: sortKeys.workflowCount } }));
    const isHeadWrite = (command: unknown) => {
      const input = (command as { input?: Record<string, unknown> }).input ?? {};
      const key = (
        command instanceof TransactWriteCommand
          ? (input.TransactItems as { Update?: { Key?: Record<string, unknown> } }[])?.[0]?.Update?.Key
          : input.Key
      ) as Record<string, unknown> | undefined;
      const write = command instanceof TransactWriteCommand || command instanceof UpdateCommand;
      return write && key?.pk === pk && key?.sk === sortKeys.workflowHead('raced');
    };
    let raced = false;
    // The workflow is saved again between the delete's read of its head and its write.
    const sent = recordCommands(async (command) => {
      if (raced || !isHeadWrite(command)) return;
      raced = true;
      expect(await savedWorkflow(t.companyId, { ...doc, name: 'Saved meanwhile' })).toEqual({
        id: 'raced',
        version: 2,
      });
    });
    const { deleteWorkflow } = await import('../../functions/shared/domain/workflows/definitions');
    const { problemResponse } = await import('../../functions/shared/http/problem');
    const error = await deleteWorkflow(t.companyId, 'raced', new Date()).catch((e) => e);
    expect(raced).toBe(true);
    const answer = problemResponse(error, 'req-raced');
    expect(answer.statusCode).toBe(409);
    expect(JSON.parse(answer.body)).toEqual({
      type: 'urn:problem-type:conflict',
      title: expect.any(String),
      status: 409,
      code: 'conflict',
      detail: 'The workflow was changed at the same moment elsewhere; delete it again.',
      requestId: 'req-raced',
    });
    vi.restoreAllMocks();
    const got = await call('GET', '/v1/workflows/raced', { headers: { 'x-api-key': t.apiKey } });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ workflow: { version: 2, name: 'Saved meanwhile' } });
    // The tombstone was sent as one UpdateItem (the transaction of one action it was).
    expect(sent.filter(isHeadWrite)).toEqual([expect.any(UpdateCommand)]);
  });
});
