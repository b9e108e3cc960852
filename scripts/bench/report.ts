// The benchmark table, for the terminal and for README.md (between the bench markers).
import * as fs from 'node:fs';
import type { PairStats, Spread } from './stats.js';

export interface Row {
  name: string;
  unit: 'ratio' | 'ms';
  value: number;
  /** NaN when the issue sets no target for this figure. */
  target: number;
  /** The target is a floor (≥), not a ceiling (≤). */
  atLeast?: boolean;
  stats?: PairStats;
  /** The same figure for the before checkout (BENCH_BEFORE), measured in the same rounds. */
  before?: number;
  /**
   * How far ours is above the before checkout, round by round, in bare starts: the figure issue 27's
   * "no row slower than before by more than 0.05×" is judged on (ours and before in the same rounds).
   */
  overBefore?: Spread;
  note?: string;
}

/** Issue 27: no row slower than before by more than this, in bare starts (the median per round). */
export const OVER_BEFORE_MAX = 0.05;

interface Results {
  generatedAt: string;
  machine: { cpus: number; model: string; node: string; loadavg?: number[] };
  pairs: number;
  /** The checkout the "before" column was measured on. */
  before?: string;
  rows: Row[];
}

const fmt = (row: Row, v: number) => (row.unit === 'ratio' ? `${v.toFixed(2)}×` : `${v.toFixed(1)} ms`);

export function formatTable(results: Results): string {
  const { machine } = results;
  const load =
    machine.loadavg === undefined ? '' : ` (load average ${machine.loadavg.join(', ')} at the end)`;
  const withBefore = results.rows.some((row) => row.before !== undefined);
  const lines = [
    `Measured ${results.generatedAt.slice(0, 10)} on ${machine.cpus} × ${machine.model}${load}, ${machine.node}; ` +
      `${results.pairs} rounds per figure (the order rotating), ratios are the median of per-round ratios against a bare \`node\` start of an empty CommonJS file` +
      (withBefore
        ? '; "before" is the same figure for the code before issue 27, measured in the same rounds.'
        : '.'),
    '',
    withBefore
      ? '| figure | before | result | target | met | detail |'
      : '| figure | result | target | met | detail |',
    withBefore ? '|---|---|---|---|---|---|' : '|---|---|---|---|---|',
  ];
  for (const row of results.rows) {
    const target = Number.isNaN(row.target) ? '—' : `${row.atLeast ? '≥' : '≤'} ${fmt(row, row.target)}`;
    const within = row.atLeast ? row.value >= row.target : row.value <= row.target;
    const met = Number.isNaN(row.target) ? '—' : within ? 'yes' : 'no';
    const detail = [
      row.stats
        ? `p10–p90 ${row.stats.p10Ratio.toFixed(2)}–${row.stats.p90Ratio.toFixed(2)}×; ${row.stats.subjectMedianMs.toFixed(0)} ms vs ${row.stats.baselineMedianMs.toFixed(0)} ms`
        : '',
      row.overBefore === undefined
        ? ''
        : `over before per round: median ${signed(row.overBefore.median)}×, p10–p90 ${signed(row.overBefore.p10)}–${signed(row.overBefore.p90)}×`,
      row.note ?? '',
    ]
      .filter((s) => s !== '')
      .join('; ');
    const before = withBefore ? ` ${row.before === undefined ? '—' : fmt(row, row.before)} |` : '';
    lines.push(`| ${row.name} |${before} ${fmt(row, row.value)} | ${target} | ${met} | ${detail} |`);
  }
  if (withBefore) lines.push('', overBeforeVerdict(results.rows));
  return lines.join('\n');
}

/** A figure with its sign, for gaps that may go either way. */
export const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;

/** Issue 27's "no row slower than before by more than 0.05×", on each row's median per round. */
export function overBeforeVerdict(rows: readonly Row[]): string {
  const judged = rows.filter((row) => row.overBefore !== undefined);
  const over = judged.filter((row) => row.overBefore!.median > OVER_BEFORE_MAX);
  const worst = judged.reduce<Row | undefined>(
    (a, b) => (a === undefined || b.overBefore!.median > a.overBefore!.median ? b : a),
    undefined,
  );
  const head = `Slower than before by more than ${OVER_BEFORE_MAX}× of a bare start (ours − before, median per round, ${judged.length} rows measured with before in the same rounds):`;
  if (over.length > 0) {
    return `${head} **no** — ${over.map((row) => `${row.name} ${signed(row.overBefore!.median)}×`).join('; ')}.`;
  }
  return `${head} none${worst === undefined ? '' : ` (the most: ${worst.name}, ${signed(worst.overBefore!.median)}×)`}.`;
}

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

/** Replaces the table between the markers; leaves README.md alone when it has no markers. */
export function updateReadme(file: string, table: string): void {
  if (!fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end < start) return;
  fs.writeFileSync(file, `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`);
}
