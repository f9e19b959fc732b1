import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FuzzReport, findingLines, formatReport, REQUEST_KINDS, runFuzz } from '../contract/fuzz';
import { type SeededTenant, seedTenant } from '../contract/seed';
import { apiUrl } from './support';

/**
 * 2,000 requests generated from the served OpenAPI document with a fixed seed (`npm run fuzz` runs more),
 * every kind among them, the hostile families included; each answer checked against the document, one test
 * per check, each listing its findings.
 */
const SEED = 20_260_401;
const COUNT = 2_000;

let tenant: SeededTenant;
let report: FuzzReport;

beforeAll(async () => {
  tenant = await seedTenant(apiUrl, inject('stack').dataDir);
  report = await runFuzz({ apiUrl, tenant, seed: SEED, count: COUNT });
  process.stdout.write(formatReport(report));
}, 240_000);
afterAll(() => tenant?.close());

const findingsOf = (...checks: string[]) =>
  findingLines(report.findings.filter((f) => checks.includes(f.check)));

describe(`${COUNT} requests generated from the OpenAPI document (seed ${SEED})`, () => {
  it('sends every request and gets an answer', () => {
    expect(report.requests).toBe(COUNT);
    expect(findingsOf('transport')).toEqual([]);
  });

  it('sends requests of every kind, the hostile families included', () => {
    expect(REQUEST_KINDS.filter((kind) => !report.byKind[kind])).toEqual([]);
  });

  it('never answers 5xx (except a declared 501)', () => {
    expect(findingsOf('no-5xx')).toEqual([]);
  });

  it('answers only statuses, media types and bodies the operation declares', () => {
    expect(findingsOf('status-declared', 'content-type-declared', 'body-schema')).toEqual([]);
  });

  it('declares the headers it sends and sends x-request-id on every answer', () => {
    expect(findingsOf('headers-declared', 'x-request-id')).toEqual([]);
  });

  it('answers every 4xx as problem+json with a code the document declares for that status', () => {
    expect(findingsOf('problem-json', 'code-declared', 'retry-after')).toEqual([]);
  });

  it('refuses invalid requests, credentials and scopes with the status their kind calls for', () => {
    expect(findingsOf('refused')).toEqual([]);
  });

  it('answers a method a path does not have with 405 and Allow', () => {
    expect(findingsOf('method-not-allowed')).toEqual([]);
  });
});
