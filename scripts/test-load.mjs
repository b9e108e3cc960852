#!/usr/bin/env node
// The unit and integration suites on a machine made busy on purpose: CPU-bound processes run beside
// `vitest run` for its whole length, so a test that only passes on an idle machine (a speed
// assertion, a margin that load eats) fails here instead of on a shared CI runner.
//
//   npm run test:load                        2 busy processes beside unit + integration
//   TEST_LOAD_PROCESSES=4 npm run test:load  another count
//   npm run test:load -- <vitest arguments>  e.g. a file filter, appended to `vitest run`
//
// Exits with vitest's status; the busy processes are stopped by pid in every case (also on Ctrl+C).
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vitestBin = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const PROJECTS = ['--project', 'unit', '--project', 'integration'];

function processCount() {
  const raw = process.env.TEST_LOAD_PROCESSES ?? '2';
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0 || count > 64) {
    process.stderr.write(
      `test:load: TEST_LOAD_PROCESSES=${JSON.stringify(raw)} is not a whole number from 0 to 64; fix: TEST_LOAD_PROCESSES=2\n`,
    );
    process.exit(2);
  }
  return count;
}

const log = (message) => process.stdout.write(`[test:load] ${message}\n`);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const count = processCount();
// A busy loop in its own Node process: one core's worth of CPU demand each, nothing else. It also
// ends by itself once this script is gone (reparented), should this script be killed outright.
const BUSY =
  'const parent = process.ppid; for (let i = 1; ; i++) if (i % 1e8 === 0 && process.ppid !== parent) break;';
const busy = Array.from({ length: count }, () => spawn(process.execPath, ['-e', BUSY], { stdio: 'ignore' }));
const stopBusy = () => {
  for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.on('exit', stopBusy);

log(
  `${count} CPU-bound processes (pids ${busy.map((c) => c.pid).join(', ') || 'none'}); load average ${load()}`,
);
const started = performance.now();
const vitest = spawn(process.execPath, [vitestBin, 'run', ...PROJECTS, ...process.argv.slice(2)], {
  cwd: repoRoot,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    vitest.kill(signal);
  });
}
vitest.on('close', (code, signal) => {
  stopBusy();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(
    `vitest ${signal === null ? `exited ${code}` : `ended by ${signal}`} after ${seconds} s beside ${count} CPU-bound processes; load average ${load()}`,
  );
  process.exit(code ?? 1);
});
