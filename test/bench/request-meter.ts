import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { type AttributeValue, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { sortKeys } from '../../functions/shared/data/keys';
import { TABLE_SHAPE } from '../../functions/shared/data/table';
import {
  type Item,
  itemSize,
  unitsOfGet,
  unitsOfQuery,
  unitsOfWrite,
  type WriteUnits,
} from './request-units';

/**
 * Counts the request units a process's DynamoDB requests consume by DynamoDB's rules (`request-units.ts`):
 * a middleware on the process's one client (`functions/shared/data/client.ts`, against DynamoDB Local).
 * Before and after each write it reads the touched items with a client of its own (those reads are not
 * counted) to know their sizes and index keys; reads are sized from the items they return. Every request
 * also asks DynamoDB Local for its `ConsumedCapacity`: for every operation but a transaction the two must
 * agree, and a difference is kept (`disagreements`, which the report throws on). Two differences are known
 * and counted apart: DynamoDB Local reports about 2 units for any transaction of small items, and 0 for a
 * read of nothing (a Query or Scan that found nothing, a BatchGetItem key not found), which DynamoDB bills
 * at its minimum (half a unit eventually).
 *
 * A Query or Scan bills the items it read before any filter, whole whatever its projection: where a request
 * filtered (ScannedCount above Count), projected or only counted, the items returned do not tell what was
 * read, and its units are DynamoDB Local's (counted in `reportedQueries`).
 *
 * The images are read around the write, not inside it: a concurrent write of the same item in between would
 * be sized into this one. The bench runs its operations one at a time, so only an operation's own background
 * work (a worker, the dispatcher) can overlap it, on items of its own.
 *
 * Units are attributed to the work running (`within`): the request path, or an off-path batch (the log
 * shipper, the event dispatcher), so the report can price the latter at full and at single-record batches;
 * `setup` is what the bench itself writes to stage an operation inside its measure (the event a webhook
 * delivery sends: its write belongs to the change that raises it), counted apart and priced nowhere.
 */
export type Work = 'request' | 'log-shipper' | 'event-dispatcher' | 'setup';

export interface Units {
  read: number;
  write: number;
  /** Of `write`, the global secondary index writes. */
  indexWrite: number;
  /** Of `write`, the writes of usage meter items (`CO#<id>#USAGE`). */
  usageWrite: number;
  /**
   * Of `write`, the writes of Dynadata type counter items (`TYPECOUNT#<type>`): the event dispatcher writes a
   * `contacts` counter once per chunk of stream records, whatever its size (decision 0063).
   */
  counterWrite: number;
}

export interface MeterTotals {
  byWork: Record<Work, Units>;
  /** Transactions, and DynamoDB Local's units for them (its known under-report). */
  transactions: { count: number; computed: number; reported: number };
  reportedQueries: number;
  /**
   * Reads of nothing (a Query or Scan that found nothing, a BatchGetItem key not found): DynamoDB bills its
   * minimum, DynamoDB Local reports 0.
   */
  emptyReads: number;
}

const zero = (): Units => ({ read: 0, write: 0, indexWrite: 0, usageWrite: 0, counterWrite: 0 });
const emptyTotals = (): MeterTotals => ({
  byWork: { request: zero(), 'log-shipper': zero(), 'event-dispatcher': zero(), setup: zero() },
  transactions: { count: 0, computed: 0, reported: 0 },
  reportedQueries: 0,
  emptyReads: 0,
});

interface Consumed {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
}
type Key = Record<string, AttributeValue>;
interface Touch {
  table: string;
  key: Key;
  /** A ConditionCheck: read, never changed. */
  check?: boolean;
}

const AV_KINDS = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);
const isAttributeValue = (v: unknown) =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 1 && AV_KINDS.has(Object.keys(v)[0] ?? '');
/** An item as DynamoDB holds it, whether a document client already unmarshalled it or not. */
const asStored = (item: unknown): Item | undefined => {
  if (item === undefined || item === null) return undefined;
  const values = Object.values(item as object);
  return values.every(isAttributeValue)
    ? (item as Item)
    : (marshall(item as Record<string, unknown>, {
        removeUndefinedValues: true,
        convertClassInstanceToMap: true,
      }) as Item);
};

const keyOfItem = (item: Item): Key => ({
  [TABLE_SHAPE.partitionKey]: item[TABLE_SHAPE.partitionKey] as AttributeValue,
  [TABLE_SHAPE.sortKey]: item[TABLE_SHAPE.sortKey] as AttributeValue,
});

interface WriteAction {
  Put?: { TableName?: string; Item?: Item };
  Update?: { TableName?: string; Key?: Key };
  Delete?: { TableName?: string; Key?: Key };
  ConditionCheck?: { TableName?: string; Key?: Key };
}

/** The items a write command touches. */
const touchesOf = (command: string, input: Record<string, unknown>): Touch[] => {
  const table = String(input.TableName ?? '');
  if (command === 'PutItemCommand') return [{ table, key: keyOfItem(input.Item as Item) }];
  if (command === 'UpdateItemCommand' || command === 'DeleteItemCommand')
    return [{ table, key: input.Key as Key }];
  if (command === 'BatchWriteItemCommand')
    return Object.entries(
      input.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Key } }[]>,
    ).flatMap(([name, requests]) =>
      requests.map((r) => ({
        table: name,
        key: r.PutRequest ? keyOfItem(r.PutRequest.Item) : (r.DeleteRequest?.Key as Key),
      })),
    );
  return (input.TransactItems as WriteAction[]).map((action) => {
    const one = action.Put ?? action.Update ?? action.Delete ?? action.ConditionCheck;
    const key = action.Put ? keyOfItem(action.Put.Item as Item) : ((one as { Key: Key }).Key ?? {});
    return { table: String(one?.TableName ?? ''), key, ...(action.ConditionCheck ? { check: true } : {}) };
  });
};

const reportedUnits = (output: unknown) =>
  [(output as { ConsumedCapacity?: Consumed | Consumed[] })?.ConsumedCapacity ?? []]
    .flat()
    .reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);

/** An item key with its ids left out (`CO#…#WHLANE#…`, `Q#…`): which kind of item a write touched. */
const shape = (key: Key) =>
  [key[TABLE_SHAPE.partitionKey]?.S, key[TABLE_SHAPE.sortKey]?.S]
    .map((part) => (part ?? '').replace(/[A-Za-z0-9_-]{12,}/g, '…'))
    .join(' ');

/**
 * With `BENCH_UNITS_TRACE=<file>`, each write's units per item are appended to that file, one line each,
 * and `markTrace` writes a heading (the operation measured next): which items an operation writes.
 */
const traceTo = (file: string | undefined) =>
  file ? (line: string) => appendFileSync(file, `${line}\n`) : undefined;
export const markTrace = (heading: string) => traceTo(process.env.BENCH_UNITS_TRACE)?.(`## ${heading}`);

export interface RequestMeter {
  totals: () => MeterTotals;
  /** Runs `fn` as off-path `work` (its units are counted apart). */
  within: <T>(work: Work, fn: () => Promise<T>) => Promise<T>;
  /** The differences from DynamoDB Local's figures on non-transaction requests, as readable lines. */
  disagreements: () => string[];
}

export const installRequestMeter = (
  client: DynamoDBClient,
  local: { endpoint: string; region: string },
): RequestMeter => {
  const raw = new DynamoDBClient({
    endpoint: local.endpoint,
    region: local.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const work = new AsyncLocalStorage<Work>();
  const trace = traceTo(process.env.BENCH_UNITS_TRACE);
  const sums = emptyTotals();
  const differences: string[] = [];
  const current = () => sums.byWork[work.getStore() ?? 'request'];
  const read = async ({ table, key }: Touch) =>
    (await raw.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item as
      | Item
      | undefined;
  const check = (command: string, computed: number, output: unknown) => {
    const reported = reportedUnits(output);
    if (Math.abs(reported - computed) > 1e-9)
      differences.push(`${command}: computed ${computed} units, DynamoDB Local reported ${reported}`);
  };

  const onWrite = async (command: string, input: Record<string, unknown>, send: () => Promise<unknown>) => {
    const touches = touchesOf(command, input);
    const before = await Promise.all(touches.map(read));
    const transactional = command === 'TransactWriteItemsCommand';
    let output: unknown;
    let failed = false;
    try {
      output = await send();
    } catch (error) {
      failed = true;
      output = error;
    }
    const after = failed ? before : await Promise.all(touches.map((t, i) => (t.check ? before[i] : read(t))));
    const units: WriteUnits[] = touches.map((_, i) =>
      unitsOfWrite(before[i], failed ? before[i] : after[i], { transactional }),
    );
    const table = units.reduce((sum, u) => sum + u.table, 0);
    const indexes = units.reduce((sum, u) => sum + u.indexes, 0);
    touches.forEach((t, i) => {
      trace?.(
        `${work.getStore() ?? 'request'} ${command.replace('Command', '')}${failed ? ' (failed)' : ''} ` +
          `${shape(t.key)} table ${units[i]?.table ?? 0} index ${units[i]?.indexes ?? 0} ` +
          `bytes ${Math.max(itemSize(before[i]), itemSize(failed ? before[i] : after[i]))}`,
      );
    });
    const sum = current();
    sum.write += table + indexes;
    sum.indexWrite += indexes;
    sum.usageWrite += touches.reduce(
      (total, t, i) =>
        total +
        (t.key[TABLE_SHAPE.partitionKey]?.S?.endsWith('#USAGE')
          ? (units[i]?.table ?? 0) + (units[i]?.indexes ?? 0)
          : 0),
      0,
    );
    sum.counterWrite += touches.reduce(
      (total, t, i) =>
        total +
        (t.key[TABLE_SHAPE.sortKey]?.S?.startsWith(sortKeys.typeCounter(''))
          ? (units[i]?.table ?? 0) + (units[i]?.indexes ?? 0)
          : 0),
      0,
    );
    if (transactional) {
      sums.transactions.count += 1;
      sums.transactions.computed += table + indexes;
      sums.transactions.reported += failed ? 0 : reportedUnits(output);
    } else if (!failed) check(command, table + indexes, output);
    if (failed) throw output;
    return output;
  };

  const onRead = async (command: string, input: Record<string, unknown>, output: Record<string, unknown>) => {
    let units: number;
    if (command === 'GetItemCommand') units = unitsOfGet(asStored(output.Item), !!input.ConsistentRead);
    else if (command === 'TransactGetItemsCommand')
      units = ((output.Responses ?? []) as { Item?: Item }[]).reduce(
        (sum, r) => sum + unitsOfGet(asStored(r.Item), true, true),
        0,
      );
    else if (command === 'BatchGetItemCommand') {
      const requested = input.RequestItems as Record<string, { Keys: Key[]; ConsistentRead?: boolean }>;
      const found = (output.Responses ?? {}) as Record<string, unknown[]>;
      let absent = 0;
      units = Object.entries(requested).reduce((sum, [name, { Keys, ConsistentRead }]) => {
        const items = found[name] ?? [];
        const strong = !!ConsistentRead;
        absent += Math.max(0, Keys.length - items.length) * unitsOfGet(undefined, strong);
        return sum + items.reduce((s: number, item) => s + unitsOfGet(asStored(item), strong), 0);
      }, 0);
      // Each key is read as a GetItem: one not found bills the minimum, which DynamoDB Local leaves out.
      if (absent > 0 && Math.abs(reportedUnits(output) - units) < 1e-9) {
        sums.emptyReads += 1;
        current().read += units + absent;
        return;
      }
      units += absent;
    } else {
      const items = (output.Items as unknown[] | undefined)?.map((i) => asStored(i) as Item);
      const whole = items && !input.ProjectionExpression && output.ScannedCount === output.Count;
      if (!whole) {
        sums.reportedQueries += 1;
        current().read += reportedUnits(output);
        return;
      }
      units = unitsOfQuery(items, !!input.ConsistentRead && !input.IndexName);
      if (items.length === 0 && reportedUnits(output) === 0) {
        sums.emptyReads += 1;
        current().read += units;
        return;
      }
    }
    if (command !== 'TransactGetItemsCommand') check(command, units, output);
    else {
      sums.transactions.count += 1;
      sums.transactions.computed += units;
      sums.transactions.reported += reportedUnits(output);
    }
    current().read += units;
  };

  const METERED =
    /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|GetItem|BatchGetItem|Query|Scan|TransactGetItems)Command$/;
  // Asked for before the document client marshals the input (its middleware sits before the serializer).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (METERED.test(context.commandName ?? ''))
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      return next(args);
    },
    { step: 'initialize', name: 'requestMeterAsk', override: true },
  );
  // After the serializer: the input is in DynamoDB's form; the output may already be a document
  // client's (plain values), then it is marshalled back to be sized.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      if (!METERED.test(command)) return next(args);
      const input = args.input as Record<string, unknown>;
      if (/^(Put|Update|Delete|BatchWrite|TransactWrite)Item/.test(command)) {
        let result: Awaited<ReturnType<typeof next>> | undefined;
        await onWrite(command, input, async () => {
          result = await next(args);
          return result.output;
        });
        return result as Awaited<ReturnType<typeof next>>;
      }
      const result = await next(args);
      await onRead(command, input, result.output as unknown as Record<string, unknown>);
      return result;
    },
    { step: 'build', name: 'requestMeter', override: true },
  );

  return {
    totals: () => structuredClone(sums),
    within: (w, fn) => work.run(w, fn),
    disagreements: () => [...differences],
  };
};

/** What was consumed between two totals. */
export const difference = (after: MeterTotals, before: MeterTotals): MeterTotals => {
  const out = emptyTotals();
  for (const w of Object.keys(out.byWork) as Work[])
    for (const k of ['read', 'write', 'indexWrite', 'usageWrite', 'counterWrite'] as const)
      out.byWork[w][k] = after.byWork[w][k] - before.byWork[w][k];
  for (const k of ['count', 'computed', 'reported'] as const)
    out.transactions[k] = after.transactions[k] - before.transactions[k];
  out.reportedQueries = after.reportedQueries - before.reportedQueries;
  out.emptyReads = after.emptyReads - before.emptyReads;
  return out;
};
