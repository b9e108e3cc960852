// `npm run demo`: auto-recall end to end on this machine with no external service — the reference
// context server over examples/knowledge, a rendered install in a temporary directory, the hook run
// exactly as Qwen runs it, verify, the launcher plan — then everything it created is removed.

import { type CleanupState, cleanup } from './cleanup.js';
import { DemoError, requireBuild } from './cli.js';
import { field, heading, write } from './output.js';
import { hookStep, launchStep, planStep, renderStep, serverStep, verifyStep } from './steps.js';
import { createWorkspace, demoToken } from './workspace.js';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

const state: CleanupState = {};
let interrupted = false;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\ndemo: ${signal}, cleaning up\n`);
    void cleanup(state).then(
      () => process.exit(SIGNAL_EXIT[signal]),
      () => process.exit(SIGNAL_EXIT[signal]),
    );
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  if (process.platform === 'win32') {
    throw new DemoError('the demo runs on Linux or macOS: it runs the hook with bash, as Qwen does there');
  }
  requireBuild();
  const token = demoToken();
  const workspace = createWorkspace(token);
  state.workspace = workspace;
  write('qwen-managed demo: auto-recall over examples/knowledge, no external service');
  field('Temp dir', `${workspace.dir} (removed at the end)`);

  state.server = await serverStep(workspace, token);
  await renderStep(workspace, state.server.url);
  await hookStep(workspace, state);
  await verifyStep(workspace);
  await planStep(workspace);
  launchStep(workspace);

  heading(7, 'Clean up');
  const report = await cleanup(state);
  field('Server', report.server);
  field('Temp dir', report.tempDir);
  field('QWEN_HOME', report.qwenHome);
  write();
  write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

try {
  await main();
} catch (error) {
  // An interrupted demo fails its pending step; the signal handler reports and exits instead.
  if (!interrupted) {
    const message = error instanceof DemoError ? error.message : String((error as Error).stack ?? error);
    process.stderr.write(`\ndemo: failed: ${message}\n`);
    const report = await cleanup(state);
    process.stderr.write(`demo: cleaned up: server ${report.server}; temp dir ${report.tempDir}\n`);
    process.exitCode = 1;
  }
}
