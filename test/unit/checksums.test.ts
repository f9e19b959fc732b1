import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checksumTypeOf, compositeChecksumSha256 } from '../../functions/shared/types/checksums';

/** Composite checksums of multipart uploads, against values computed apart (Python's hashlib). */
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

describe('compositeChecksumSha256', () => {
  it('is the SHA-256 of the concatenated part digests, then the part count', () => {
    const parts = ['a'.repeat(10), 'b'.repeat(7), 'c'].map(sha256);
    expect(parts).toEqual([
      'vyy1imj2hNlaO3jvj2Ycmk5bCegsyPnMiMzpBSjK6yc=',
      '6kFaYb0ZkVCENmoKL9rr4HCpwxaId+zbXjb0kFtfiqM=',
      'Ln0sA6lQeuJl7PW1NWiFpTOTogKdJBOUmXJloaJa78Y=',
    ]);
    expect(compositeChecksumSha256(parts)).toBe('BxkdPQ7wfZOPHWJ+/oa8UfGeQieYmRXFF1W3vMuz5aM=-3');
  });

  it('of one part is the SHA-256 of its digest, not the part checksum itself', () => {
    expect(compositeChecksumSha256([sha256('')])).toBe('Xfbg4nYTWdMKgnUFjimfzAOBU0VF9Vz0PkGYP11MlFY=-1');
  });

  it('depends on the order of the parts', () => {
    const [a, b] = [sha256('a'), sha256('b')];
    expect(compositeChecksumSha256([a, b])).not.toBe(compositeChecksumSha256([b, a]));
  });
});

describe('checksumTypeOf', () => {
  it('tells a composite checksum from a whole object one by its part count', () => {
    expect(checksumTypeOf('BxkdPQ7wfZOPHWJ+/oa8UfGeQieYmRXFF1W3vMuz5aM=-3')).toBe('COMPOSITE');
    expect(checksumTypeOf('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')).toBe('FULL_OBJECT');
  });
});
