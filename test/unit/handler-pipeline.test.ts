import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';

// The unit project silences logs; these tests read them.
vi.hoisted(() => {
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
});

import { logger } from '../../functions/shared/observability/logger';
import { createHandler } from '../../functions/shared/pipeline/handler';
import { lambdaContext } from '../fixtures/api-events';

let stdout: MockInstance<typeof process.stdout.write>;
beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  stdout.mockRestore();
});

const logLines = (): Record<string, unknown>[] =>
  stdout.mock.calls
    .map(([chunk]) => String(chunk).trim())
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const worker = createHandler(
  async (event: { companyId: string; jobId: string; fail?: boolean }) => {
    logger.info('working');
    if (event.fail) throw new Error('step failed');
    return { done: true };
  },
  ({ companyId, jobId }) => ({ companyId, jobId }),
);

describe('the handler pipeline of a function that is not an API group', () => {
  it("puts the Lambda context and the unit of work's keys on its log lines, and resets the keys after", async () => {
    expect(await worker({ companyId: 'co_1', jobId: 'tc_1' }, lambdaContext)).toEqual({ done: true });
    logger.info('between invocations');
    const [during, after] = logLines();
    expect(during).toMatchObject({
      message: 'working',
      companyId: 'co_1',
      jobId: 'tc_1',
      function_name: lambdaContext.functionName,
      function_request_id: lambdaContext.awsRequestId,
    });
    expect(after?.message).toBe('between invocations');
    expect(after).not.toHaveProperty('companyId');
    expect(after).not.toHaveProperty('jobId');
  });

  it('runs outside Lambda without a context (the local stack and tests), and resets the keys after a failure', async () => {
    await expect(worker({ companyId: 'co_2', jobId: 'tc_2', fail: true })).rejects.toThrow('step failed');
    logger.info('between invocations');
    const [during, after] = logLines();
    expect(during).toMatchObject({ message: 'working', companyId: 'co_2', jobId: 'tc_2' });
    expect(during).not.toHaveProperty('function_name');
    expect(after).not.toHaveProperty('companyId');
  });
});
