import { describe, expect, it } from 'vitest';
import { speakSymbols } from '../../functions/shared/domain/spoken-symbols';
import { spokenText } from '../../functions/shared/domain/spoken-text';

/** Golden cases: what a speech engine is handed for amounts, dates and abbreviations. */
const GOLDEN: ReadonlyArray<readonly [string, string, string]> = [
  [
    'an amount before a comma keeps the comma after the unit',
    'It costs $5, e.g. today.',
    'It costs 5 dollars, for example today.',
  ],
  ['one of a unit', 'It costs $1.', 'It costs 1 dollar.'],
  ['grouped digits', 'It costs $1,000 or £2,500,000.', 'It costs 1,000 dollars or 2,500,000 pounds.'],
  ['dollars and cents', 'It costs $1,000.50 now.', 'It costs 1,000 dollars and 50 cents now.'],
  ['cents alone', 'A stamp is $0.99.', 'A stamp is 99 cents.'],
  ['one cent', 'Add $2.01.', 'Add 2 dollars and 1 cent.'],
  ['zero cents', 'Pay €5.00 today.', 'Pay 5 euros today.'],
  ['pence', 'It was £3.50.', 'It was 3 pounds and 50 pence.'],
  ['yen', 'It was ¥500.', 'It was 500 yen.'],
  ['a fraction that is not cents', 'Gas is $3.499 a gallon.', 'Gas is 3.499 dollars a gallon.'],
  ['a scale word', 'It costs $2.5 billion.', 'It costs 2.5 billion dollars.'],
  ['a scale letter', 'Raised $3k and €4M.', 'Raised 3 thousand dollars and 4 million euros.'],
  ['a word after the amount is not a scale', 'Pay $5 more.', 'Pay 5 dollars more.'],
  ['a space after the symbol', 'Pay $ 5.', 'Pay 5 dollars.'],
  ['an ISO date', 'On 2026-11-25 at 09:30 UTC.', 'On November 25, 2026 at 09:30 UTC.'],
  ['an ISO date with a leading zero day', 'Due 2026-03-05.', 'Due March 5, 2026.'],
  ['not a date', 'Call 2026-13-45 or 12345-11-25.', 'Call 2026-13-45 or 12345-11-25.'],
  [
    'a month abbreviation before a day',
    'Meet on Jan. 5, 2026 or Sept. 30.',
    'Meet on January 5, 2026 or September 30.',
  ],
  ['a month abbreviation without a day is left alone', 'In Jan. we rest.', 'In Jan. we rest.'],
  ['e.g. and i.e.', 'Fruit, e.g. apples, i.e. food.', 'Fruit, for example apples, that is food.'],
  [
    'etc. before a new sentence keeps its period',
    'Apples, pears, etc. Then more.',
    'Apples, pears, et cetera. Then more.',
  ],
  ['approx.', 'It is approx. 5 km.', 'It is approximately 5 km.'],
  ['vs.', 'Cats vs. dogs.', 'Cats versus dogs.'],
  ['percent', 'Up 5% today.', 'Up 5 percent today.'],
];

describe('speakSymbols', () => {
  it.each(GOLDEN)('%s', (_name, input, expected) => {
    expect(speakSymbols(input)).toBe(expected);
  });

  it('gives the money sentence its words through the whole spoken-text rewrite', async () => {
    expect((await spokenText('It costs $5, e.g. today.')).text).toBe(
      'It costs 5 dollars, for example today.',
    );
  });
});
