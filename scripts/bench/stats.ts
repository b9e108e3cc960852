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

/**
 * Runs `warmup` discarded pairs, then `pairs` measured ones; the order inside a pair alternates so
 * neither side always runs on a warmer cache.
 */
export async function alternate<T = number>(
  pairs: number,
  warmup: number,
  baseline: () => Promise<T>,
  subject: () => Promise<T>,
): Promise<{ subject: T[]; baseline: T[] }> {
  const out = { subject: [] as T[], baseline: [] as T[] };
  for (let i = 0; i < warmup + pairs; i++) {
    let s: T;
    let b: T;
    if (i % 2 === 0) {
      b = await baseline();
      s = await subject();
    } else {
      s = await subject();
      b = await baseline();
    }
    if (i >= warmup) {
      out.subject.push(s);
      out.baseline.push(b);
    }
  }
  return out;
}
