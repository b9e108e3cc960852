import { defineConfig } from 'vitest/config';

// Three projects: fast unit tests, integration tests with real child processes and loopback servers,
// and end-to-end tests that drive the real Qwen CLI in a pseudo-terminal. The e2e project runs last
// and one file at a time: each Qwen session is CPU-heavy on a 2-core machine. The timeouts only catch
// hangs: they leave a loaded machine (a shared CI runner, `npm run test:load`) three to five times
// what a test takes there, never a speed limit.
export default defineConfig({
  test: {
    pool: 'forks',
    // The default output, then one line of counts per project and the wall time (CI logs it).
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/fixtures/**/*.test.ts'],
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Stages what the throwaway users run outside the clone (test/e2e/harness/run-location.ts).
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
