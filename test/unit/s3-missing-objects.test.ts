import { afterEach, describe, expect, it, vi } from 'vitest';
import { headObject, s3 } from '../../functions/shared/aws/s3';

// s3rver always answers a missing key with 404; S3 answers 403 to a caller that may not list the bucket
// there, which is how the functions' grants are scoped. Only the SDK client is stubbed.
const failWith = (status: number, name: string) =>
  vi
    .spyOn(s3(), 'send')
    .mockRejectedValue(
      Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } }) as never,
    );

afterEach(() => vi.restoreAllMocks());

describe('headObject', () => {
  it.each([
    [404, 'NotFound'],
    [403, 'Forbidden'],
  ])('reports no object when S3 answers %i', async (status, name) => {
    failWith(status, name);
    await expect(headObject('bucket', 'companies/co_1/a.bin')).resolves.toBeUndefined();
  });

  it('passes other failures on', async () => {
    failWith(500, 'InternalError');
    await expect(headObject('bucket', 'companies/co_1/a.bin')).rejects.toThrow('InternalError');
  });
});
