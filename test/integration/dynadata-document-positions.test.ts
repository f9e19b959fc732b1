import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostileStorageReferences } from '../fixtures/hostile-storage-paths';
import { storeObjectRecord } from './stored-object-fixture';
import { call, createTenant, runAdmin } from './support';

/**
 * Document fields (`x-document: true`) in every position the schema subset allows: a property, a property
 * of a nested object, array items, `additionalProperties` (of a nested object and of the root), items of an
 * array held under `additionalProperties`, and a property of objects in an array. Every hostile reference of
 * the shared corpus is refused at each position by create, update and validate.
 */
const SCHEMA = {
  type: 'object',
  properties: {
    top: { 'x-document': true },
    nested: { type: 'object', properties: { doc: { 'x-document': true } } },
    list: { type: 'array', items: { 'x-document': true } },
    files: { type: 'object', additionalProperties: { 'x-document': true } },
    groups: { type: 'object', additionalProperties: { type: 'array', items: { 'x-document': true } } },
    rows: { type: 'array', items: { type: 'object', properties: { doc: { 'x-document': true } } } },
  },
  additionalProperties: { 'x-document': true },
};

/** Where a reference sits in an item, and the item that puts it there. */
const POSITIONS: { name: string; pointer: string; place: (ref: unknown) => Record<string, unknown> }[] = [
  { name: 'property', pointer: '/top', place: (ref) => ({ top: ref }) },
  { name: 'nested property', pointer: '/nested/doc', place: (ref) => ({ nested: { doc: ref } }) },
  { name: 'array items', pointer: '/list/1', place: (ref) => ({ list: [OWN, ref] }) },
  {
    name: 'additionalProperties',
    pointer: '/files/scan',
    place: (ref) => ({ files: { ok: OWN, scan: ref } }),
  },
  { name: 'root additionalProperties', pointer: '/extra', place: (ref) => ({ extra: ref }) },
  {
    name: 'items under additionalProperties',
    pointer: '/groups/a/0',
    place: (ref) => ({ groups: { a: [ref] } }),
  },
  { name: 'property of array items', pointer: '/rows/0/doc', place: (ref) => ({ rows: [{ doc: ref }] }) },
];

let OWN: { fullPath: string } = { fullPath: '' };

const schemaFile = (schema: unknown): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'dd-positions-')), 'schema.json');
  writeFileSync(file, JSON.stringify(schema));
  return file;
};

const putType = (companyId: string, name: string, schema: unknown) =>
  runAdmin('types', 'put', '--company', companyId, '--name', name, '--file', schemaFile(schema));

const setup = async () => {
  const t = await createTenant();
  const other = await createTenant();
  const put = await putType(t.companyId, 'vault', SCHEMA);
  expect(put.code, put.err).toBe(0);
  OWN = { fullPath: `companies/${t.companyId}/files/own.pdf` };
  await storeObjectRecord(t.companyId, OWN.fullPath);
  await storeObjectRecord(other.companyId, `companies/${other.companyId}/uploads/x/file.png`);
  return { t, other, headers: { 'x-api-key': t.apiKey } };
};

/** An empty path or bucket breaks the document field's shape (minLength 1) before the reference is read. */
const expectedCode = (reference: { bucket?: string; fullPath: string }) =>
  reference.fullPath === '' || reference.bucket === '' ? 'validation_failed' : 'invalid_storage_reference';

const refusedAt = (json: Record<string, unknown>, pointer: string): boolean => {
  const errors = (json.errors ?? []) as { pointer: string }[];
  return (
    errors.length > 0 && errors.every((e) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`))
  );
};

describe('Dynadata document fields in every schema position', () => {
  it('accepts the own stored file at every position', async () => {
    const { headers } = await setup();
    for (const position of POSITIONS) {
      const res = await call('POST', '/v1/dynadata/type/vault/create', {
        headers,
        body: position.place(OWN),
      });
      expect(res.status, `${position.name}: ${JSON.stringify(res.json)}`).toBe(201);
    }
  });

  it('refuses every hostile reference of the corpus at every position on create, update and validate', async () => {
    const { t, other, headers } = await setup();
    const corpus = hostileStorageReferences(t.companyId, other.companyId, process.env.BUCKET_NAME ?? '');
    const base = await call('POST', '/v1/dynadata/type/vault/create', { headers, body: { top: OWN } });
    expect(base.status).toBe(201);
    const failures: string[] = [];
    for (const position of POSITIONS) {
      const pointer = `/body${position.pointer}`;
      await Promise.all(
        corpus.map(async (hostile) => {
          const body = position.place(hostile.reference);
          const label = `${position.name} / ${hostile.name}`;
          const code = expectedCode(hostile.reference);
          const created = await call('POST', '/v1/dynadata/type/vault/create', { headers, body });
          if (created.status !== 400 || created.json.code !== code || !refusedAt(created.json, pointer))
            failures.push(`create ${label}: ${created.status} ${JSON.stringify(created.json.errors)}`);
          const updated = await call('POST', '/v1/dynadata/type/vault/update', {
            headers,
            body: { _id: base.json._id, ...body },
          });
          if (updated.status !== 400 || updated.json.code !== code || !refusedAt(updated.json, pointer))
            failures.push(`update ${label}: ${updated.status} ${JSON.stringify(updated.json.errors)}`);
          const validated = await call('POST', '/v1/dynadata/type/vault/validate', { headers, body });
          if (
            validated.status !== 200 ||
            validated.json.valid !== false ||
            !refusedAt(validated.json, pointer)
          )
            failures.push(`validate ${label}: ${validated.status} ${JSON.stringify(validated.json)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
    // Nothing hostile was stored: the base item is unchanged and it is the only one.
    const item = await call('GET', `/v1/dynadata/type/vault/item/${String(base.json._id)}`, { headers });
    expect(item.json).toMatchObject({ _version: 1, top: OWN });
    const list = await call('POST', '/v1/dynadata/type/vault/list', { headers, body: {} });
    expect((list.json.items as unknown[]).length).toBe(1);
  });

  it('refuses x-document on the root of a type schema when the type is saved', async () => {
    const { t } = await setup();
    const put = await putType(t.companyId, 'rootdoc', { type: 'object', 'x-document': true });
    expect(put.code).toBe(1);
    expect(put.err).toMatch(/x-document/);
  });
});
