// The bench's "no row slower than before by more than 0.05×" (issue 27): ours against the before
// checkout round by round, in units of the same round's bare start, and the verdict under the table.
import { describe, expect, it } from 'vitest';
import { overBeforeVerdict, type Row } from '../../../scripts/bench/report.js';
import { overPerRound } from '../../../scripts/bench/stats.js';

describe('overPerRound: (subject − other) / baseline, round by round', () => {
  it('pairs each round with its own baseline', () => {
    // Round 2 is slow for all three: as a difference of medians it would read 0.5×, per round 0.1×.
    expect(overPerRound([11, 33, 11], [10, 30, 10], [10, 30, 10])).toEqual({
      median: 0.1,
      p10: 0.1,
      p90: 0.1,
    });
  });

  it('gives the spread of the per-round figures', () => {
    const spread = overPerRound([12, 10, 11, 13, 9], [10, 10, 10, 10, 10], [10, 10, 10, 10, 10]);
    expect(spread.median).toBeCloseTo(0.1);
    expect(spread.p10).toBeCloseTo(-0.06);
    expect(spread.p90).toBeCloseTo(0.26);
  });
});

const row = (name: string, over?: number): Row => ({
  name,
  unit: 'ratio',
  value: 1,
  target: Number.NaN,
  ...(over === undefined ? {} : { before: 1, overBefore: { median: over, p10: over, p90: over } }),
});

describe('overBeforeVerdict', () => {
  it.each<[string, Row[], RegExp]>([
    [
      'every row within the bar names the most',
      [row('a', 0.02), row('b', 0.049)],
      /: none \(the most: b, \+0\.05×\)\.$/,
    ],
    ['a row over the bar is named', [row('a', 0.02), row('b', 0.051)], /: \*\*no\*\* — b \+0\.05×\.$/],
    ['faster than before reads negative', [row('a', -0.2)], /none \(the most: a, −0\.20×\)/],
    ['rows without a before figure are not judged', [row('a', 0.01), row('c')], /1 rows measured/],
  ])('%s', (_name, rows, verdict) => {
    expect(overBeforeVerdict(rows)).toMatch(verdict);
  });
});
