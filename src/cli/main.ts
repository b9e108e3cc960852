// `qwen-managed`: the admin CLI entry (dist/cli/qwen-managed.js). The only module of the CLI that
// touches the process: it builds the I/O and the machine dependencies, dispatches, and sets the exit
// code (errors.ts maps errors to codes).
import * as os from 'node:os';
import packageJson from '../../package.json' with { type: 'json' };
import { defaultRuntimeDir } from '../deploy/render/runtime-files.js';
import { processIO } from './command.js';
import { createBrokerCommand } from './commands/broker.js';
import { planCommand } from './commands/plan.js';
import { probeCommand } from './commands/probe.js';
import { createRenderCommand } from './commands/render.js';
import { createRollbackCommand } from './commands/rollback.js';
import { serveContextCommand } from './commands/serve-context.js';
import { createVerifyCommand } from './commands/verify.js';
import type { AdminDeps } from './deps.js';
import { runProgram } from './program.js';
import { stepRunnerFor } from './progress.js';

const deps: AdminDeps = {
  toolkitVersion: packageJson.version,
  now: () => new Date().toISOString(),
  adminUid: () => (typeof process.getuid === 'function' ? process.getuid() : 0),
  runtimeDir: () => defaultRuntimeDir(import.meta.url),
  nodePath: process.execPath,
  hostPlatform: os.platform(),
  steps: stepRunnerFor,
};

const commands = [
  createRenderCommand(deps),
  createVerifyCommand(deps),
  planCommand,
  probeCommand,
  createRollbackCommand(deps),
  serveContextCommand,
  createBrokerCommand(),
];

const info = {
  name: 'qwen-managed',
  version: packageJson.version,
  description: packageJson.description,
};

process.exitCode = await runProgram(info, commands, process.argv.slice(2), processIO(process));
