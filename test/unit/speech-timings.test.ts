import { describe, expect, it } from 'vitest';
import {
  marksFromDurations,
  parseSentenceMarks,
  timingsFromMarks,
} from '../../functions/shared/domain/speech-timings';

describe('speech job timing file', () => {
  it('turns sentence marks into ordered sentences covering the audio, from 0 to its end', () => {
    const marks = parseSentenceMarks(
      [
        '{"time":1210,"type":"sentence","start":14,"end":30,"value":"Second one."}',
        '{"time":6,"type":"sentence","start":0,"end":13,"value":"First one."}',
        '{"time":300,"type":"word","start":0,"end":5,"value":"First"}',
        '',
      ].join('\n'),
    );
    expect(timingsFromMarks(marks, 2500.4)).toEqual([
      { text: 'First one.', start: 0, end: 1210 },
      { text: 'Second one.', start: 1210, end: 2500 },
    ]);
  });

  it('never ends a sentence before it starts when the audio is shorter than the marks say', () => {
    const marks = parseSentenceMarks(
      '{"time":0,"type":"sentence","start":0,"end":2,"value":"A."}\n{"time":900,"type":"sentence","start":3,"end":5,"value":"B."}\n',
    );
    expect(timingsFromMarks(marks, 800)).toEqual([
      { text: 'A.', start: 0, end: 800 },
      { text: 'B.', start: 800, end: 800 },
    ]);
  });

  it('writes marks from measured durations in Polly’s format, byte offsets included', () => {
    const text = marksFromDurations(['Héllo.', 'Bye.'], [1000.4, 500]);
    expect(parseSentenceMarks(text)).toEqual([
      { time: 0, type: 'sentence', start: 0, end: 7, value: 'Héllo.' },
      { time: 1000, type: 'sentence', start: 8, end: 12, value: 'Bye.' },
    ]);
    expect(timingsFromMarks(parseSentenceMarks(text), 1500.4).at(-1)).toEqual({
      text: 'Bye.',
      start: 1000,
      end: 1500,
    });
  });
});
