// "Did you mean": the one edit-distance rule behind every suggestion — settings keys, deployment
// keys, profile names, commands and flags — so a typo is judged the same everywhere.

/** Edit distance (insert, delete, substitute, swap two neighbours): how far a typo is from a key. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The closest candidate within a third of the typed length (at least 2 edits), or undefined. */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/**
 * The fix for a value outside a fixed list: `did you mean <near>? (one of …)` when a string value is
 * a typo of one, else `use one of …`. `show` prints a value as the message quotes it.
 */
export function oneOfFix(
  value: unknown,
  allowed: readonly unknown[],
  show: (value: unknown) => string,
): string {
  const list = `one of ${allowed.map(show).join(', ')}`;
  const strings = allowed.filter((v): v is string => typeof v === 'string');
  const near = typeof value === 'string' ? closest(value, strings) : undefined;
  return near === undefined ? `use ${list}` : `did you mean ${show(near)}? (${list})`;
}
