// Entry of the package's `launch-qwen` (dist/cli/launch-qwen.js): finds the deployed install
// (launch-locator.ts) and replaces itself with that install's bin/launch-qwen, arguments unchanged —
// the install's own launcher refuses every one it does not accept. The only module that touches the process.
import * as fs from 'node:fs';
import packageJson from '../../package.json' with { type: 'json' };
import { DEFAULT_INSTALL_DIR, DEPLOYMENT_POINTER, locateInstall } from './launch-locator.js';

const PROGRAM = 'launch-qwen';
const args = process.argv.slice(2);
// The package's owner installed the toolkit: it, and root, may own the deployment pointer.
const trustedUid = fs.statSync(new URL(import.meta.url)).uid;
const located = locateInstall(fs, trustedUid);

if (located.kind !== 'found') {
  // Without an install there is nothing to launch; the two informational flags still answer.
  if (args.length === 1 && args[0] === '--version') {
    process.stdout.write(
      `${PROGRAM} ${packageJson.version} (qwen-managed package; no deployed install found)\n`,
    );
  } else if (args.length === 1 && args[0] === '--help') {
    process.stdout.write(
      `Usage: ${PROGRAM} --profile <kind>\n\nRuns the deployed install's launcher (the installDir of ${DEPLOYMENT_POINTER}, else ${DEFAULT_INSTALL_DIR}); none is deployed here yet.\n`,
    );
  } else {
    const lines = located.kind === 'refused' ? located.problems : [located.message];
    for (const line of lines) process.stderr.write(`${PROGRAM}: ${line}\n`);
    process.exitCode = 1;
  }
} else {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never })
    .execve;
  if (typeof execve === 'function') execve.call(process, located.shim, [located.shim, ...args], process.env);
  // Node before 22.15 has no execve: run it with this terminal and pass its status on.
  const { spawnSync } = await import('node:child_process');
  const result = spawnSync(located.shim, args, { stdio: 'inherit' });
  if (result.error !== undefined) {
    process.stderr.write(
      `${PROGRAM}: cannot run ${located.shim} (${String((result.error as NodeJS.ErrnoException).code)})\n`,
    );
    process.exitCode = 1;
  } else if (result.signal !== null) process.kill(process.pid, result.signal);
  else process.exitCode = result.status ?? 1;
}
