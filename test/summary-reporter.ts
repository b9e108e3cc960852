// One line at the end of every vitest run, beside the default reporter: the test counts per project
// and the wall time, so a CI log (and `npm run test:load`) says how many tests passed, failed or were
// skipped and how long the whole run took. A file that failed outside its tests (a beforeAll, an
// import) is counted too: its tests may never have started.
import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';

type Counts = { passed: number; failed: number; skipped: number; pending: number; failedFiles: number };

export default class SummaryReporter implements Reporter {
  private started = performance.now();

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    const projects = new Map<string, Counts>();
    for (const module of modules) {
      const name = module.project.name || 'default';
      const counts = projects.get(name) ?? { passed: 0, failed: 0, skipped: 0, pending: 0, failedFiles: 0 };
      for (const test of module.children.allTests()) counts[test.result().state]++;
      if (module.state() === 'failed') counts.failedFiles++;
      projects.set(name, counts);
    }
    const parts = [...projects].map(([name, c]) => {
      const extra = [
        c.failed > 0 ? `${c.failed} failed` : '',
        c.skipped > 0 ? `${c.skipped} skipped` : '',
        c.pending > 0 ? `${c.pending} not run` : '',
        c.failedFiles > 0 ? `${c.failedFiles} file(s) failed` : '',
      ].filter((s) => s !== '');
      return `${name} ${c.passed} passed${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
    });
    const seconds = ((performance.now() - this.started) / 1000).toFixed(1);
    process.stdout.write(
      `\n[tests] ${reason}: ${parts.join(' · ') || 'no tests'} · wall time ${seconds} s\n`,
    );
  }
}
