// Child process of interrupt.test.ts: `qwen-managed render` as qwen-managed.ts runs it (the real processIO,
// so the real SIGINT wiring), except that it pauses after "Render the install tree" — the lock is
// held, nothing is written — prints `paused` and waits for the parent's Ctrl+C.
// argv: DEPLOYMENT OUT RUNTIME_DIR
import { processIO } from '../../../src/cli/command.js';
import { renderCommand } from '../../../src/cli/commands/render.js';
import { runProgram } from '../../../src/cli/program.js';
import { plainProgress } from '../../../src/cli/progress.js';
import { adminDeps } from '../../fixtures/admin-deps.js';

const [deployment, out, runtimeDir] = process.argv.slice(2) as [string, string, string];

const command = renderCommand(
  adminDeps({
    now: () => new Date().toISOString(),
    runtimeDir: async () => runtimeDir,
    progress: (stdout) => {
      const plain = plainProgress(stdout);
      return {
        async step(title, run, detail) {
          if (title === 'Write the install tree') {
            process.stdout.write('paused\n');
            await new Promise(() => setInterval(() => {}, 1000));
          }
          return plain.step(title, run, detail);
        },
      };
    },
  }),
);
process.exitCode = await runProgram(
  { name: 'qwen-managed', version: '0.0.0-test', description: 'interrupt test' },
  [command],
  ['render', '--deployment', deployment, '--out', out],
  processIO(process, 'qwen-managed'),
);
