// A unified diff of two texts (line based, LCS), for `rollback --dry-run`. Settings files are small;
// past MAX_CELLS the diff falls back to replacing the whole file.
const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string };

function lines(text: string): string[] {
  const out = text.split('\n');
  if (out.at(-1) === '') out.pop();
  return out;
}

function ops(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...a.map((line) => ({ kind: '-' as const, line })),
      ...b.map((line) => ({ kind: '+' as const, line })),
    ];
  }
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: '-', line: a[i++]! });
    else out.push({ kind: '+', line: b[j++]! });
  }
  while (i < n) out.push({ kind: '-', line: a[i++]! });
  while (j < m) out.push({ kind: '+', line: b[j++]! });
  return out;
}

export function unifiedDiff(before: string, after: string, name: string): string {
  if (before === after) return '';
  const all = ops(lines(before), lines(after));
  const out = [`--- a/${name}`, `+++ b/${name}`];
  let k = 0;
  while (k < all.length) {
    while (k < all.length && all[k]!.kind === ' ') k++;
    if (k >= all.length) break;
    let start = Math.max(0, k - CONTEXT);
    let end = k;
    // Extend the hunk while changes are within 2*CONTEXT lines of each other.
    for (;;) {
      while (end < all.length && all[end]!.kind !== ' ') end++;
      let gap = end;
      while (gap < all.length && all[gap]!.kind === ' ') gap++;
      if (gap < all.length && gap - end <= 2 * CONTEXT) end = gap;
      else break;
    }
    end = Math.min(all.length, end + CONTEXT);
    const count = (upTo: number, kinds: string) =>
      all.slice(0, upTo).filter((o) => kinds.includes(o.kind)).length;
    const aStart = count(start, ' -') + 1;
    const bStart = count(start, ' +') + 1;
    const hunk = all.slice(start, end);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = end;
    start = end;
  }
  return `${out.join('\n')}\n`;
}
