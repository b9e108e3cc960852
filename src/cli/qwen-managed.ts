// `qwen-managed`: the admin CLI entry (dist/cli/qwen-managed.js). The only module of the CLI that
// touches the process: it builds the I/O and the machine dependencies, wires every command the one
// way (defineCommand factories given the same deps), dispatches, and sets the exit code (command-errors.ts
// maps errors to codes).
import * as fs from 'node:fs';
import * as os from 'node:os';
import { readOpenclawSessions } from '../../launcher/openclaw-sessions.js';
import packageJson from '../../package.json' with { type: 'json' };
import { defaultRuntimeDir } from '../deploy/render/runtime-files.js';
import { processIds } from '../host/process-ids.js';
import { DEFAULT_QWEN_VERSION, SUPPORTED_QWEN_VERSIONS } from '../qwen/versions.js';
import { processIO } from './command.js';
import { brokerCommand } from './commands/broker.js';
import { planCommand } from './commands/plan.js';
import { probeCommand } from './commands/probe.js';
import { renderCommand } from './commands/render.js';
import { rollbackCommand } from './commands/rollback.js';
import { serveContextCommand } from './commands/serve-context.js';
import { statusCommand } from './commands/status.js';
import { verifyCommand } from './commands/verify.js';
import type { AdminDeps } from './deps.js';
import { runProgram } from './program.js';
import { progressFor } from './progress.js';

const deps: AdminDeps = {
  toolkitVersion: packageJson.version,
  now: () => new Date().toISOString(),
  adminUid: () => (typeof process.getuid === 'function' ? process.getuid() : 0),
  identity: processIds(process),
  runtimeDir: () => defaultRuntimeDir(import.meta.url),
  nodePath: process.execPath,
  hostPlatform: os.platform(),
  userInfo: () => os.userInfo(),
  fs,
  openclawSessions: readOpenclawSessions,
  progress: progressFor,
  onShutdownSignal(stop) {
    const handler = () => stop();
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

/** In the order `--help` lists them. */
const COMMANDS = [
  renderCommand,
  verifyCommand,
  planCommand,
  probeCommand,
  rollbackCommand,
  statusCommand,
  serveContextCommand,
  brokerCommand,
];

const info = {
  name: 'qwen-managed',
  version: packageJson.version,
  description: packageJson.description,
  versionDetails: [
    `Qwen Code ${DEFAULT_QWEN_VERSION} (default); supported: ${SUPPORTED_QWEN_VERSIONS.join(', ')}`,
  ],
};

process.exitCode = await runProgram(
  info,
  COMMANDS.map((command) => command(deps)),
  process.argv.slice(2),
  processIO(process, info.name),
);
