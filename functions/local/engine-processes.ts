/**
 * Wall-clock spans of the media engine's processes the local stack ran (ffmpeg, ffprobe, pocketsphinx,
 * espeak-ng), in `performance.now()` time. The jobs bench takes the union of the spans inside a job as the
 * engine's own time; everything else in the job (requests, table and S3 round trips, the Step Functions
 * interpreter, the handlers) is its overhead. The last MAX_SPANS are kept.
 */
export interface EngineSpan {
  command: string;
  start: number;
  end: number;
}

const MAX_SPANS = 1000;
export const engineSpans: EngineSpan[] = [];

export const recordEngineSpan = (command: string, start: number) => {
  engineSpans.push({ command, start, end: performance.now() });
  if (engineSpans.length > MAX_SPANS) engineSpans.splice(0, engineSpans.length - MAX_SPANS);
};

/** Milliseconds within `[from, to]` during which at least one engine process ran. */
export const engineTimeWithin = (from: number, to: number): number => {
  const spans = engineSpans
    .map((s) => ({ start: Math.max(s.start, from), end: Math.min(s.end, to) }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let reach = from;
  for (const s of spans) {
    if (s.end <= reach) continue;
    total += s.end - Math.max(s.start, reach);
    reach = s.end;
  }
  return total;
};
