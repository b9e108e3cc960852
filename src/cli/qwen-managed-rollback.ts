// Entry of the self-contained rollback bundle (dist/runtime/rollback.js, installed as
// <installDir>/runtime/rollback.js): the same rollback command as `qwen-managed rollback`, runnable
// where no node_modules exist. Like qwen-managed.ts, the only module of its bundle that touches the process.
import packageJson from '../../package.json' with { type: 'json' };
import { processIds } from '../host/process-ids.js';
import { processIO } from './command.js';
import { rollbackCommand } from './commands/rollback.js';
import { runSingleCommand } from './program.js';

const info = { name: 'qwen-managed-rollback', version: packageJson.version, description: 'rollback' };

void runSingleCommand(
  info,
  rollbackCommand({
    now: () => new Date().toISOString(),
    hostPlatform: process.platform,
    adminUid: () => (typeof process.getuid === 'function' ? process.getuid() : 0),
    identity: processIds(process),
  }),
  process.argv.slice(2),
  processIO(process, info.name),
).then((code) => {
  process.exitCode = code;
});
