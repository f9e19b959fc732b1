import { decodeItem, type TransactItem } from '../../data/entity';
import { type EventInput, eventItem } from '../../data/events';
import type { JobStoreConfig } from '../../data/jobs/config';
import { readSettleMark, SETTLE_ATTRIBUTE, STREAMED_ATTRIBUTE } from '../../data/jobs/settle';
import { SPEECH_JOB_STORE } from '../../data/speech-jobs';
import { transcodeStore } from '../../data/transcode-jobs';
import { transcriptionStore } from '../../data/transcription-jobs';
import { familyOf, type UsageAdditions, type UsageFigure } from '../../data/usage-families';
import { addStorageBytesItem, billedWork, usageItems } from '../../data/usage-meters';
import { derivedUlid } from '../../ids';
import { type ChunkKeys, createChunkWriter, writeEventChunk } from '../events/stream-chunks';
import { toPublicJob, toPublicSpeechJob, toPublicTranscription } from './public-views';

/**
 * A job's final move, settled from the table's stream (decision 0065): the move wrote the job (status,
 * output records, queue slot) with its settle mark (`data/jobs/settle.ts`); the event dispatcher raises the
 * move's event (its id derived from the job, the attempt and the status, so the same move raises it once
 * whichever record carries it) and adds what the move bills: a `done` job's `billedSeconds` of its type's meter
 * with the mark's compute time, and the mark's output bytes:
 *
 * Moves are written in chunks, one transaction each (`events/stream-chunks.ts`): the moves' events, each
 * conditional on its absence, then the usage month's family item and the company's storage figure, each
 * updated once with the chunk's sums. A transaction cancelled because an event exists (its record was
 * handled before) is sent again without that move, so each move is added once. A job's moves are written
 * in the stream's order. Every settled type raises an event on each final status (a unit test checks it):
 * the event is what makes the figures' addition happen once.
 */

interface JobEventSource {
  store: Pick<JobStoreConfig<string, never, object>, 'entities' | 'finished' | 'eventTypes' | 'meter'> & {
    schemas: { job: () => unknown };
  };
  view: (job: never) => unknown;
}

/** The job types whose final moves are settled from the stream, by their job item's entity. */
const SOURCES = new Map<string, JobEventSource>(
  [
    { store: transcodeStore, view: toPublicJob },
    { store: transcriptionStore, view: toPublicTranscription },
    { store: SPEECH_JOB_STORE, view: toPublicSpeechJob },
  ].map((source) => [source.store.entities.job, source as unknown as JobEventSource]),
);

/** A final move to settle: its event, and what it adds (the usage of its day, its output bytes). */
export interface JobSettle {
  /** The job's key: a chunk settles one move of a job at most. */
  itemKey: string;
  companyId: string;
  event: EventInput;
  usage?: { date: string; additions: UsageAdditions };
  storageBytes: number;
}

interface JobImage {
  pk?: unknown;
  sk?: unknown;
  entity?: unknown;
  status?: unknown;
  attempt?: unknown;
  companyId?: unknown;
  jobId?: unknown;
  finishedAt?: unknown;
  billedSeconds?: unknown;
  [SETTLE_ATTRIBUTE]?: unknown;
  [STREAMED_ATTRIBUTE]?: unknown;
}

/**
 * The settle of a job item's stream record, when the record is a final move's (its new image holds the
 * mark of its own attempt in a final status, and its old image did not hold that same settle). Throws when
 * the item cannot be read.
 */
export const jobSettleOf = (change: {
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
}): JobSettle | undefined => {
  const image = change.newImage as JobImage | undefined;
  const source = SOURCES.get(String(image?.entity));
  const mark = image && readSettleMark(image as Record<string, unknown>);
  if (!image || !source || !mark) return undefined;
  const status = String(image.status);
  if (!source.store.finished.includes(status as never)) return undefined;
  // A later write of a settled job (a retry removes the mark, and its next final move sets it again).
  const old = change.oldImage as JobImage | undefined;
  if (old?.[STREAMED_ATTRIBUTE] === true && old.status === image.status && old.attempt === image.attempt)
    return undefined;
  const itemKey = `${String(image.pk)}#${String(image.sk)}`;
  const billed = status === 'done' && Number(image.billedSeconds) > 0;
  const type = source.store.eventTypes?.[status as never] as EventInput['type'] | undefined;
  if (!type) {
    if (billed || mark.storageBytes) throw new Error(`${status} of ${itemKey} adds figures with no event`);
    return undefined;
  }
  const job = decodeItem(
    source.store.entities.job,
    source.store.schemas.job() as never,
    image as Record<string, unknown>,
  ) as { companyId: string; jobId: string; attempt: number; billedSeconds: number; finishedAt?: string };
  const at = new Date(job.finishedAt ?? String(image.finishedAt));
  return {
    itemKey,
    companyId: job.companyId,
    event: {
      id: `evt_${derivedUlid(at.getTime(), `${itemKey}#${job.attempt}#${status}`)}`,
      companyId: job.companyId,
      type,
      resourceId: job.jobId,
      data: source.view(job as never),
      now: at,
    },
    ...(billed
      ? {
          usage: {
            date: at.toISOString().slice(0, 10),
            additions: billedWork(source.store.meter, job.billedSeconds, mark.computeMs),
          },
        }
      : {}),
    storageBytes: mark.storageBytes ?? 0,
  };
};

const familyItem = (settle: JobSettle) =>
  settle.usage
    ? `${settle.companyId}#${settle.usage.date.slice(0, 7)}#${familyOf(Object.keys(settle.usage.additions) as UsageFigure[])}`
    : undefined;

/** A settle's chunk keys: its job, its usage month's family item (in the form of its day), its company's totals. */
const keysOf = (settle: JobSettle): ChunkKeys => {
  const family = familyItem(settle);
  return {
    item: settle.itemKey,
    sums: [
      ...(family && settle.usage ? [{ item: family, form: settle.usage.date }] : []),
      ...(settle.storageBytes !== 0 ? [{ item: `${settle.companyId}#totals`, form: '' }] : []),
    ],
  };
};

/** The chunk's transaction: its events, then each family item's and company's summed figures. */
const chunkActions = (chunk: readonly JobSettle[]): TransactItem[] => {
  const usage = new Map<string, { companyId: string; date: string; additions: UsageAdditions }>();
  const bytes = new Map<string, number>();
  for (const settle of chunk) {
    const family = familyItem(settle);
    if (family && settle.usage) {
      const sum = usage.get(family) ?? {
        companyId: settle.companyId,
        date: settle.usage.date,
        additions: {},
      };
      for (const [figure, value] of Object.entries(settle.usage.additions) as [UsageFigure, number][])
        sum.additions[figure] = (sum.additions[figure] ?? 0) + value;
      usage.set(family, sum);
    }
    if (settle.storageBytes !== 0)
      bytes.set(settle.companyId, (bytes.get(settle.companyId) ?? 0) + settle.storageBytes);
  }
  return [
    ...chunk.map((settle) => eventItem(settle.event)),
    ...[...usage.values()].flatMap((u) =>
      usageItems(u.companyId, new Date(`${u.date}T00:00:00Z`), u.additions),
    ),
    ...[...bytes].map(([companyId, sum]) => addStorageBytesItem(companyId, sum)),
  ];
};

/**
 * The writer of one stream batch's job settles: each call resolves when its move is settled and rejects when
 * it must be handled again. Every move goes in a chunk (`events/stream-chunks.ts`), so a job's moves stay in
 * the stream's order; a chunk of one move without figures is its event's plain Put (decision 0052).
 */
export const createJobSettleWriter = () => {
  const write = createChunkWriter(keysOf, (chunk: readonly JobSettle[]) =>
    writeEventChunk(chunk, chunkActions),
  );
  return (settle: JobSettle): Promise<void> => write(settle);
};
