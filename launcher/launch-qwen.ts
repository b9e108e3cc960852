// launch-qwen: the only file of the launcher that touches the process. Step 1 (arguments) here, then
// the decision of prepareLaunch() (pins, terminal, environment, repository: prepare-launch.ts), which
// this file executes — the Qwen home, the launch's defaults layer, the working directory, the run.
// Nothing is written or started before every check has passed.
import { randomBytes } from 'node:crypto';
import packageJson from '../package.json' with { type: 'json' };
import { ManagedError } from '../src/base/errors.js';
import { platformOfHost } from '../src/base/platform.js';
import { ALL_PROFILE_KINDS, type AnyProfileKind } from '../src/contracts/launch-plan.js';
import { listenerTables } from '../src/host/proc-net.js';
import { ARGUMENT_POLICY } from '../src/policy/policies.js';
import { parseArgs } from './args.js';
import { installDirFromLauncher } from './install-dir.js';
import { helpText, LAUNCH_EXIT, LaunchError, PROGRAM } from './messages.js';
import { readOpenclawSessions } from './openclaw-sessions.js';
import { prepareLaunch, repositoryRefusal } from './prepare-launch.js';
import { ensurePrivateHome, ensureQwenHome, homePlatform, writeLaunchDefaults } from './qwen-home.js';
import { type Execve, runQwen } from './run.js';

// The built-ins whole, as objects (fs is also the decision's injected file system): a namespace
// import would make the bundle copy every export of each at start-up, about 1 ms (docs/performance.md).
const fs = process.getBuiltinModule('node:fs');
const os = process.getBuiltinModule('node:os');
const path = process.getBuiltinModule('node:path');
const tty = process.getBuiltinModule('node:tty');

function writeErr(text: string): void {
  fs.writeSync(2, text);
}

/**
 * The pinned node's version. The bin/ shim starts this launcher on the pinned node, so it is ours at
 * no cost; only a launcher started some other way asks the pinned node itself.
 */
function nodeVersionOf(node: string): string | undefined {
  try {
    if (fs.realpathSync(node) === fs.realpathSync(process.execPath)) return process.version;
    const out = process.getBuiltinModule('node:child_process').execFileSync(node, ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      env: {},
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /^v\d+\.\d+\.\d+/.test(out.trim()) ? out.trim() : undefined;
  } catch {
    // A missing or unusable node is the pins' to report.
    return undefined;
  }
}

/** A file's text, or empty when it cannot be read (the broker check then finds nothing there). */
function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Executes the decision of prepareLaunch(): nothing is written or started before it is complete. */
async function launch(kind: AnyProfileKind): Promise<void> {
  const platform = platformOfHost(process.platform);
  // Step 2a: the bundle's own real path names the install directory.
  const installDir = installDirFromLauncher(__filename, fs, platform === 'windows' ? path.win32 : path.posix);
  const user = os.userInfo();
  const decision = await prepareLaunch({
    installDir,
    kind,
    hostPlatform: process.platform,
    purpose: 'launch',
    fs,
    callerEnv: process.env,
    home: user.homedir,
    terminal: { stdinIsTTY: tty.isatty(0), stdoutIsTTY: tty.isatty(1) },
    nodeVersionOf,
    openclawSessions: readOpenclawSessions,
    loadProject: () => import('./repository-project.js'),
    // A brokered profile's credential broker: who holds its ports (the kernel's socket table) and
    // whether it answers this user. Loaded only for a brokered plan: node:net is not otherwise needed.
    broker: {
      tables: (endpoints) => listenerTables(fs, endpoints, os.endianness()),
      byteOrder: os.endianness(),
      passwd: () => readOrEmpty('/etc/passwd'),
      connect: (host, port) => process.getBuiltinModule('node:net').connect({ host, port }),
    },
  });
  const refusal = repositoryRefusal(decision);
  if (refusal !== undefined) throw refusal;
  const uniqueSuffix = () => `${process.pid}.${randomBytes(6).toString('hex')}`;
  const homeOptions = { home: user.homedir, uid: user.uid, platform: homePlatform(process.platform), fs };
  if (decision.host === 'openclaw') {
    ensurePrivateHome(decision.stateDir, 'the OpenClaw state directory', homeOptions);
  } else {
    ensureQwenHome(decision.qwenHome, {
      ...homeOptions,
      uniqueSuffix: uniqueSuffix(),
      seed: decision.qwenHomeSeed,
      settingsVersion: decision.qwenSettingsVersion,
    });
    writeLaunchDefaults(decision.launchDefaults.file, decision.launchDefaults.content!, {
      fs,
      uniqueSuffix: uniqueSuffix(),
    });
  }
  // The one line a rolled-back profile prints, once every check has passed.
  if (decision.notice !== undefined) writeErr(`${decision.notice}\n`);
  // OpenClaw reads the turn from the terminal without a prompt of its own.
  if (decision.host === 'openclaw') writeErr(`${decision.prompt}\n`);
  // Steps 5 and 6: working directory and run.
  const execve = (process as { execve?: Execve }).execve;
  runQwen(decision.command, {
    platform: process.platform,
    execve: typeof execve === 'function' ? execve.bind(process) : undefined,
    chdir: (dir) => process.chdir(dir),
    // Loaded only on this fallback path: node:child_process alone costs milliseconds at every start.
    spawn: (file, args, options) => process.getBuiltinModule('node:child_process').spawn(file, args, options),
    onSignal: (signal, handler) => process.on(signal, handler),
    offSignal: (signal, handler) => process.off(signal, handler),
    raise: (signal) => process.kill(process.pid, signal),
    exit: (code) => process.exit(code),
    later: (ms, fn) => setTimeout(fn, ms),
    signalNumber: (signal) => os.constants.signals[signal] ?? 0,
    stderr: writeErr,
  });
}

async function main(): Promise<void> {
  // Step 1: arguments.
  const args = parseArgs(process.argv.slice(2), ARGUMENT_POLICY);
  if (args.kind === 'help') {
    fs.writeSync(1, helpText(ALL_PROFILE_KINDS));
    return;
  }
  if (args.kind === 'version') {
    fs.writeSync(1, `${PROGRAM} ${packageJson.version}\n`);
    return;
  }
  if (args.kind === 'refused') {
    writeErr(`${PROGRAM}: ${args.message}\nusage: ${PROGRAM} --profile <kind> (see ${PROGRAM} --help)\n`);
    process.exitCode = LAUNCH_EXIT.usage;
    return;
  }
  try {
    await launch(args.profile);
  } catch (error) {
    // The launcher's one mapping: an expected error carries its exit code and its lines.
    if (error instanceof LaunchError) {
      for (const problem of error.problems) writeErr(`${PROGRAM}: ${problem}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof ManagedError) {
      writeErr(`${PROGRAM}: ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    // Anything unforeseen still refuses to start Qwen, with exit code 1 and no stack dump.
    writeErr(`${PROGRAM}: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = LAUNCH_EXIT.failure;
  }
}

void main();
