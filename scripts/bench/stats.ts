// Alternating-pairs statistics: every subject run is paired with a bare `node` start measured right
// next to it, so machine load moves both sides of a ratio together.

export interface PairStats {
  pairs: number;
  medianRatio: number;
  p10Ratio: number;
  p90Ratio: number;
  subjectMedianMs: number;
  baselineMedianMs: number;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = (sorted.length - 1) * q;
  const lo = Math.floor(index);
  const hi = Math.ceil(index);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (index - lo);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export function pairStats(subject: readonly number[], baseline: readonly number[]): PairStats {
  const ratios = subject.map((s, i) => s / baseline[i]!);
  return {
    pairs: ratios.length,
    medianRatio: median(ratios),
    p10Ratio: quantile(ratios, 0.1),
    p90Ratio: quantile(ratios, 0.9),
    subjectMedianMs: median(subject),
    baselineMedianMs: median(baseline),
  };
}

export interface Spread {
  median: number;
  p10: number;
  p90: number;
}

/**
 * How far `subject` is above `other`, round by round, in units of the same round's `baseline`
 * (`(subject[i] − other[i]) / baseline[i]`): the gap between two runs measured in the same rounds,
 * without each one's median coming from a different round.
 */
export function overPerRound(
  subject: readonly number[],
  other: readonly number[],
  baseline: readonly number[],
): Spread {
  const over = subject.map((s, i) => (s - other[i]!) / baseline[i]!);
  return { median: median(over), p10: quantile(over, 0.1), p90: quantile(over, 0.9) };
}

/** The median of `subject[i] − baseline[i]`: what the subject costs more, pair by pair (ms). */
export function medianDifference(subject: readonly number[], baseline: readonly number[]): number {
  return median(subject.map((s, i) => s - baseline[i]!));
}

/**
 * Runs `warmup` discarded rounds, then `rounds` measured ones, each running every one of `runs` once;
 * the order rotates from round to round so no run always goes first (on a colder cache) or last.
 * Returns each run's results, in the order of `runs`.
 */
export async function rotate<T>(rounds: number, warmup: number, runs: (() => Promise<T>)[]): Promise<T[][]> {
  const out = runs.map(() => [] as T[]);
  for (let round = 0; round < warmup + rounds; round++) {
    const results: T[] = [];
    for (let k = 0; k < runs.length; k++) {
      const index = (round + k) % runs.length;
      results[index] = await runs[index]!();
    }
    if (round < warmup) continue;
    for (const [index, result] of results.entries()) out[index]!.push(result);
  }
  return out;
}
