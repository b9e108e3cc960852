// Entry of the self-contained rollback bundle (dist/runtime/rollback.js, installed as
// <installDir>/runtime/rollback.js): the same rollback command as `qwen-managed rollback`, runnable
// where no node_modules exist. Like main.ts, the only module of its bundle that touches the process.
import packageJson from '../../package.json' with { type: 'json' };
import type { CliIO } from './command.js';
import { createRollbackCommand } from './commands/rollback.js';
import { runSingleCommand } from './program.js';

const io: CliIO = {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
};
const info = { name: 'qwen-managed-rollback', version: packageJson.version, description: 'rollback' };

void runSingleCommand(
  info,
  createRollbackCommand({ now: () => new Date().toISOString() }),
  process.argv.slice(2),
  io,
).then((code) => {
  process.exitCode = code;
});
