// Timings measured by the e2e suites: printed in the test output and appended to
// test/e2e/.work/timings.jsonl (git-ignored) so one run's numbers can be read back together.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths.js';

const FILE = join(repoRoot, 'test', 'e2e', '.work', 'timings.jsonl');

export function recordTiming(name: string, ms: number, detail: Record<string, unknown> = {}): void {
  console.log(
    `[e2e timing] ${name}: ${Math.round(ms)} ms${Object.keys(detail).length ? ` ${JSON.stringify(detail)}` : ''}`,
  );
  try {
    mkdirSync(join(repoRoot, 'test', 'e2e', '.work'), { recursive: true });
    appendFileSync(
      FILE,
      `${JSON.stringify({ at: new Date().toISOString(), name, ms: Math.round(ms), ...detail })}\n`,
    );
  } catch {
    // the console line is what matters
  }
}
