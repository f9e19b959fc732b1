import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { eventItem, toEventRecord, workflowRunFinishedEventItem } from '../../functions/shared/data/events';
import {
  PACK_THRESHOLD_BYTES,
  packJsonText,
  packJsonValue,
  packText,
  readJsonText,
  readPacked,
  unpackText,
} from '../../functions/shared/data/packed-json';
import { toChange } from '../../functions/workers/event-dispatcher/index';
import { itemSize } from '../bench/request-units';

const now = new Date('2026-11-29T16:20:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

/** A finished run as its GET route (and so its `workflow_run.finished` event) shows it: n one-line steps. */
const finishedRun = (steps: number) => ({
  runId: 'run_01kb3zq7x8y9abcdefghjkmnpq',
  workflowId: `steps-${steps}`,
  version: 1,
  mode: 'async',
  status: 'success',
  ok: true,
  result: { text: 'Hi.' },
  files: [],
  logs: Array.from({ length: steps }, (_, i) => ({
    step: `s${i}`,
    action: 'actions/speech/spoken-text',
    status: 'succeeded',
    startedAt: at(100 + 37 * i),
    durationMs: 3 + i,
    message: null,
  })),
  error: null,
  failedSteps: [],
  executionTimeMs: 14,
  createdAt: at(0),
  updatedAt: at(900),
  finishedAt: at(900),
  handedOffAt: at(50),
  trigger: { type: 'api' },
});

describe('packed JSON attributes', () => {
  it('keeps a text under the threshold as it is', () => {
    const small = { id: 'tc_1', status: 'done' };
    expect(packText(JSON.stringify(small))).toBeUndefined();
    expect(packJsonText(small)).toBe(JSON.stringify(small));
    expect(packJsonValue([small])).toEqual([small]);
    const justUnder = 'x'.repeat(PACK_THRESHOLD_BYTES - 3);
    expect(Buffer.byteLength(JSON.stringify(justUnder))).toBe(PACK_THRESHOLD_BYTES - 1);
    expect(packJsonText(justUnder)).toBe(JSON.stringify(justUnder));
    expect(packJsonText(`${justUnder}x`)).toBeInstanceOf(Uint8Array);
  });

  it('packs a long text smaller, with its format byte, and reads it back exactly', () => {
    const run = finishedRun(5);
    const packed = packJsonText(run);
    expect(packed).toBeInstanceOf(Uint8Array);
    const bytes = packed as Uint8Array;
    expect(bytes[0]).toBe(1);
    expect(bytes.length).toBeLessThan(JSON.stringify(run).length / 2);
    expect(unpackText(bytes)).toBe(JSON.stringify(run));
    expect(readJsonText(packed)).toEqual(run);
    // Non-ASCII text, empty keys and deep nesting come back the same.
    let deep: unknown = { '': 'clé vide ✓', emoji: '🎙️'.repeat(50) };
    for (let level = 0; level < 40; level++) deep = { level, deep };
    expect(JSON.stringify(readJsonText(packJsonText(deep)))).toBe(JSON.stringify(deep));
  });

  it('reads the plain forms written before packing', () => {
    expect(readJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    const logs = finishedRun(1).logs;
    expect(readPacked(logs)).toBe(logs);
    const packedLogs = packJsonValue(finishedRun(5).logs);
    expect(packedLogs).toBeInstanceOf(Uint8Array);
    expect(readPacked(packedLogs)).toEqual(finishedRun(5).logs);
  });

  it('refuses a binary attribute of a format it does not know', () => {
    expect(() => unpackText(Uint8Array.of(9, 1, 2))).toThrow(/unknown format 9/);
  });
});

describe('event items with packed data', () => {
  for (const steps of [3, 5, 8]) {
    it(`keeps the workflow_run.finished event of a ${steps}-step run within 1 KB`, () => {
      const run = finishedRun(steps);
      const { Put } = workflowRunFinishedEventItem({ companyId: 'co_01kb3zq7x8y9abcdefghjkmnpq', run, now });
      expect(Put.Item.data).toBeInstanceOf(Uint8Array);
      expect(itemSize(marshall(Put.Item, { removeUndefinedValues: true }))).toBeLessThanOrEqual(1024);
      expect(toEventRecord(Put.Item).data).toEqual(run);
    });
  }

  it('reads events written before packing: data as JSON text, and as a map', () => {
    const { Put } = eventItem({
      companyId: 'co_1',
      type: 'workflow_run.finished',
      resourceId: 'r',
      data: {},
      now,
    });
    const run = finishedRun(5);
    const packed = toEventRecord({ ...Put.Item, data: packJsonText(run) });
    const text = toEventRecord({ ...Put.Item, data: JSON.stringify(run) });
    const map = toEventRecord({ ...Put.Item, data: run });
    expect(packed).toEqual(text);
    expect(map).toEqual(text);
    expect(JSON.stringify(packed)).toBe(JSON.stringify(text));
  });

  it('reads a packed event from a stream record as Lambda hands it over (binary as base64)', () => {
    const run = finishedRun(5);
    const { Put } = workflowRunFinishedEventItem({ companyId: 'co_1', run, now });
    const image = marshall(Put.Item, { removeUndefinedValues: true });
    // Lambda's event is JSON: a binary attribute arrives as base64 text.
    const asLambda = JSON.parse(
      JSON.stringify(image, (_, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
      ),
    );
    expect(typeof asLambda.data.B).toBe('string');
    for (const newImage of [asLambda, image]) {
      const change = toChange({ eventName: 'INSERT', dynamodb: { NewImage: newImage } });
      expect(toEventRecord(change.newImage ?? {}).data).toEqual(run);
    }
  });
});
