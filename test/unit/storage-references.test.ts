import { describe, expect, it } from 'vitest';
import { storedObjectKey } from '../../functions/shared/data/stored-objects';
import { sanitiseFileName } from '../../functions/shared/domain/storage';
import {
  companyStoragePrefix,
  parseStorageReference,
  storagePathProblem,
} from '../../functions/shared/domain/storage-references';
import { AppError, NotFoundError } from '../../functions/shared/errors';
import { hostileStorageReferences } from '../fixtures/hostile-storage-paths';

// vitest.config.ts sets BUCKET_NAME=unit-bucket for unit tests.
const BUCKET = 'unit-bucket';
const OWN = 'co_own';
const OTHER = 'co_other';

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('parseStorageReference', () => {
  it('accepts an own path and defaults the bucket to the platform bucket', () => {
    expect(parseStorageReference(OWN, { fullPath: 'companies/co_own/uploads/01/a.png' })).toEqual({
      bucket: BUCKET,
      fullPath: 'companies/co_own/uploads/01/a.png',
    });
    expect(parseStorageReference(OWN, { bucket: BUCKET, fullPath: 'companies/co_own/x' }).bucket).toBe(
      BUCKET,
    );
  });

  it.each(hostileStorageReferences(OWN, OTHER, BUCKET).map((h) => [h.name, h] as const))(
    'refuses %s',
    (_name, hostile) => {
      const error = thrown(() => parseStorageReference(OWN, hostile.reference));
      if (hostile.expect === 404) {
        expect(error).toBeInstanceOf(NotFoundError);
      } else {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe('invalid_storage_reference');
        expect((error as AppError).status).toBe(400);
        expect((error as AppError).errors).toHaveLength(1);
      }
    },
  );

  it('points at the given field, and at its bucket sibling for a bad bucket', () => {
    const path = thrown(() => parseStorageReference(OWN, { fullPath: 'a//b' }, '/body/fields/doc/fullPath'));
    expect((path as AppError).errors?.[0]?.pointer).toBe('/body/fields/doc/fullPath');
    const bucket = thrown(() =>
      parseStorageReference(
        OWN,
        { bucket: 'x', fullPath: 'companies/co_own/a' },
        '/body/fields/doc/fullPath',
      ),
    );
    expect((bucket as AppError).errors?.[0]?.pointer).toBe('/body/fields/doc/bucket');
    const query = thrown(() => parseStorageReference(OWN, { fullPath: '../x' }, '/query/fullPath'));
    expect((query as AppError).errors?.[0]?.pointer).toBe('/query/fullPath');
  });

  it('accepts a path of exactly 1024 bytes and refuses 1025', () => {
    const prefix = companyStoragePrefix(OWN);
    expect(storagePathProblem(prefix + 'a'.repeat(1024 - prefix.length))).toBeUndefined();
    expect(storagePathProblem(prefix + 'a'.repeat(1025 - prefix.length))).toMatch(/1024 bytes/);
  });

  it('refuses non-string paths', () => {
    expect(storagePathProblem(42)).toMatch(/string/);
    expect(storagePathProblem(undefined)).toMatch(/string/);
  });
});

describe('sanitiseFileName', () => {
  it.each([
    ['photo.png', 'photo.png'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['Résumé final (v2).pdf', 'Resume-final-v2-.pdf'],
    ['..', 'file'],
    ['', 'file'],
    ['a\u0000b\nc.txt', 'a-b-c.txt'],
    ['.hidden', 'hidden'],
    ['日本語.txt', 'txt'],
  ])('turns %j into %j', (input, expected) => {
    const safe = sanitiseFileName(input);
    expect(safe).toBe(expected);
    expect(storagePathProblem(`companies/${OWN}/uploads/x/${safe}`)).toBeUndefined();
  });

  it('keeps the end (extension) of a long name, at most 128 characters', () => {
    const safe = sanitiseFileName(`${'a'.repeat(300)}.tar.gz`);
    expect(safe).toHaveLength(128);
    expect(safe.endsWith('.tar.gz')).toBe(true);
  });
});

describe('storedObjectKey', () => {
  it('keys each object in its own partition under the company', () => {
    expect(storedObjectKey('co_1', 'companies/co_1/uploads/x/a.png')).toEqual({
      pk: 'CO#co_1#OBJ#companies/co_1/uploads/x/a.png',
      sk: 'OBJECT',
    });
  });
});
