import { describe, expect, it } from 'vitest';
import { API_TRACE_SAMPLING } from '../../lib/constructs/trace-sampling';
import {
  dominant,
  FULL_BATCH,
  type OffPathWork,
  offPathAt,
  PLATFORM_LOG_BYTES,
  priceOperation,
  total,
  ZERO_USAGE,
} from '../bench/cost-model';
import { PRICES } from '../bench/prices';

const none = ZERO_USAGE;

describe('the AWS bill of a measured operation', () => {
  it('bills Lambda by configured memory and duration rounded up to the millisecond, per run', () => {
    const lines = priceOperation(
      {
        ...none,
        runs: 2,
        invocations: [
          { fn: 'f', ms: 99.2 },
          { fn: 'f', ms: 99.9 },
        ],
      },
      () => ({ memoryMb: 1024 }),
    );
    // Two 100 ms invocations at 1 GB over two runs: 0.1 GB-s a run.
    expect(lines['Lambda GB-s']).toBeCloseTo(0.1 * PRICES.lambdaArmPerGbSecond, 12);
    expect(lines['Lambda requests']).toBeCloseTo(PRICES.lambdaPerMillionRequests / 1_000_000, 12);
  });

  it('bills an x86_64 function at x86 price and the others at arm64 price', () => {
    const lines = priceOperation(
      {
        ...none,
        invocations: [
          { fn: 'arm', ms: 1000 },
          { fn: 'ffmpeg', ms: 1000, x86: true },
        ],
      },
      () => ({ memoryMb: 1024 }),
    );
    expect(lines['Lambda GB-s']).toBeCloseTo(PRICES.lambdaArmPerGbSecond + PRICES.lambdaX86PerGbSecond, 12);
  });

  it('bills Transcribe at least 15 seconds and MediaConvert at least 10 a job', () => {
    const short = priceOperation({ ...none, transcribeSeconds: 5, mediaConvertSeconds: 5 }, () => ({
      memoryMb: 128,
    }));
    expect(short.Transcribe).toBeCloseTo((15 / 60) * PRICES.transcribePerMinute, 12);
    expect(short.MediaConvert).toBeCloseTo((10 / 60) * PRICES.mediaConvertBasicPerMinute, 12);
  });

  it('bills SQS per request: a message sent, received and deleted is three', () => {
    const lines = priceOperation({ ...none, sqsRequests: 3 }, () => ({ memoryMb: 128 }));
    expect(lines['SQS requests']).toBeCloseTo((3 * PRICES.sqsStandardPerMillionRequests) / 1_000_000, 12);
  });

  it('bills an Express execution per request and per 100 ms started at 64 MB', () => {
    const lines = priceOperation({ ...none, expressExecutionsMs: [150] }, () => ({ memoryMb: 128 }));
    expect(lines['Step Functions']).toBeCloseTo(
      PRICES.stepFunctionsExpressPerMillionRequests / 1_000_000 +
        (64 / 1024) * 0.2 * PRICES.stepFunctionsExpressPerGbSecond,
      12,
    );
  });

  it('names the line that dominates an operation', () => {
    const lines = priceOperation({ ...none, apiRequests: 1, stateTransitions: 9 }, () => ({ memoryMb: 128 }));
    expect(dominant(lines).line).toBe('Step Functions');
    expect(total(lines)).toBeCloseTo(
      (PRICES.apiGatewayRestPerMillionRequests + PRICES.wafPerMillionRequests) / 1_000_000 +
        (9 * PRICES.stepFunctionsPerThousandTransitions) / 1000,
      12,
    );
  });

  it("counts Lambda's platform lines only for a function whose system log level sends them", () => {
    const logsOf = (systemLogLevel?: string) =>
      priceOperation(
        {
          ...none,
          logBytes: 1000,
          invocations: [{ fn: 'f', ms: 10 }],
          offPath: [
            { fn: 'f', batchesMs: [10], records: 1, readUnits: 0, writeUnits: 0, perBatchWriteUnits: 0 },
          ],
        },
        () => ({ memoryMb: 128, ...(systemLogLevel ? { systemLogLevel } : {}) }),
        'low',
      )['CloudWatch Logs'];
    const perByte = PRICES.cloudWatchLogsPerGbIngested / 1024 ** 3;
    // Two invocations (the request's and an off-path batch of one), each with START, END and REPORT.
    for (const level of [undefined, 'INFO', 'DEBUG'])
      expect(logsOf(level), String(level)).toBeCloseTo((1000 + 2 * PLATFORM_LOG_BYTES) * perByte, 15);
    // At WARN Lambda writes no platform line: only the function's own bytes are billed.
    expect(logsOf('WARN')).toBeCloseTo(1000 * perByte, 15);
  });

  const perTrace = (PRICES.xrayPerMillionTracesRecorded + PRICES.xrayPerMillionTracesRetrieved) / 1_000_000;

  it('records traces no API request starts at 5 % at volume and every trace at low volume', () => {
    const usage = { ...none, traces: 1 };
    expect(priceOperation(usage, () => ({ memoryMb: 128 }))['X-Ray']).toBeCloseTo(0.05 * perTrace, 15);
    expect(priceOperation(usage, () => ({ memoryMb: 128 }), 'low')['X-Ray']).toBeCloseTo(perTrace, 15);
  });

  it("records an API request's trace at the stage's sampling rule at volume", () => {
    const usage = { ...none, apiRequests: 1, traces: 1 };
    expect(API_TRACE_SAMPLING.fixedRate).toBe(0.01);
    expect(priceOperation(usage, () => ({ memoryMb: 128 }))['X-Ray']).toBeCloseTo(0.01 * perTrace, 15);
    expect(priceOperation(usage, () => ({ memoryMb: 128 }), 'low')['X-Ray']).toBeCloseTo(perTrace, 15);
  });

  it('shares an off-path batch and its once-a-batch writes among a full batch at volume, not at low volume', () => {
    // 10 records in 5 batches of 2 (20 ms each); 1 write per record and 2 once a batch.
    const work: OffPathWork = {
      fn: 'shipper',
      batchesMs: [20, 20, 20, 20, 20],
      records: 10,
      readUnits: 0,
      writeUnits: 10 + 5 * 2,
      perBatchWriteUnits: 10,
    };
    const low = offPathAt(work, 'low');
    expect(low.invocations).toHaveLength(10);
    expect(low.writeUnits).toBe(10 + 10 * 2);
    const volume = offPathAt(work, 'volume');
    expect(volume.invocations.reduce((sum, i) => sum + (i.share ?? 1), 0)).toBeCloseTo(10 / FULL_BATCH, 12);
    expect(volume.writeUnits).toBeCloseTo(10 + (10 / FULL_BATCH) * 2, 12);
  });
});
