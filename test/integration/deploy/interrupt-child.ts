// Child process of interrupt.test.ts: `qwen-managed render` as main.ts runs it (the real processIO,
// so the real SIGINT wiring), except that it pauses after "Render the install tree" — the lock is
// held, nothing is written — prints `paused` and waits for the parent's Ctrl+C.
// argv: DEPLOYMENT OUT RUNTIME_DIR
import { processIO } from '../../../src/cli/command.js';
import { createRenderCommand } from '../../../src/cli/commands/render.js';
import { runProgram } from '../../../src/cli/program.js';
import { plainSteps } from '../../../src/cli/progress.js';

const [deployment, out, runtimeDir] = process.argv.slice(2) as [string, string, string];

const command = createRenderCommand({
  toolkitVersion: '0.0.0-test',
  now: () => new Date().toISOString(),
  adminUid: () => 0,
  runtimeDir: async () => runtimeDir,
  nodePath: process.execPath,
  hostPlatform: 'linux',
  steps: (stdout) => async (steps) => {
    await plainSteps(stdout)(steps.slice(0, 3));
    process.stdout.write('paused\n');
    await new Promise(() => setInterval(() => {}, 1000));
  },
});
process.exitCode = await runProgram(
  { name: 'qwen-managed', version: '0.0.0-test', description: 'interrupt test' },
  [command],
  ['render', '--deployment', deployment, '--out', out],
  processIO(process),
);
