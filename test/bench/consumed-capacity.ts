import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Counts the DynamoDB request units a process consumes, as DynamoDB reports them: a client middleware
 * that asks every item operation for `ReturnConsumedCapacity: 'TOTAL'` and sums the answers, reads and
 * writes apart (on-demand bills them apart). Installed by the bench and the tests on the process's one
 * client (`functions/shared/data/client.ts`) against DynamoDB Local; never on a deployed function.
 */
const READS = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

export interface CapacityTotals {
  readUnits: number;
  writeUnits: number;
  /** Item operations sent (a batch or transaction counts once). */
  requests: number;
}

interface Consumed {
  CapacityUnits?: number;
}

export interface CapacityMeter {
  totals: () => CapacityTotals;
  /** The units `fn` consumed (and its result). */
  measure: <T>(fn: () => Promise<T>) => Promise<{ result: T; units: CapacityTotals }>;
}

export const installCapacityMeter = (client: DynamoDBClient): CapacityMeter => {
  const sums: CapacityTotals = { readUnits: 0, writeUnits: 0, requests: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const read = READS.has(command);
      if (!read && !WRITES.has(command)) return next(args);
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const reported = (result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
      const units = [reported ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      sums.requests += 1;
      if (read) sums.readUnits += units;
      else sums.writeUnits += units;
      return result;
    },
    { step: 'initialize', name: 'capacityMeter', override: true },
  );
  const totals = () => ({ ...sums });
  return {
    totals,
    measure: async (fn) => {
      const before = totals();
      const result = await fn();
      const after = totals();
      return {
        result,
        units: {
          readUnits: after.readUnits - before.readUnits,
          writeUnits: after.writeUnits - before.writeUnits,
          requests: after.requests - before.requests,
        },
      };
    },
  };
};
