// launch-qwen: the only file of the launcher that touches the process. It wires the six steps in
// order — arguments, pins, terminal, environment, working directory, run — and nothing is started
// before every check has passed.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tty from 'node:tty';
import packageJson from '../package.json' with { type: 'json' };
import { ManagedError } from '../src/base/errors.js';
import { platformOfHost } from '../src/base/platform.js';
import { PROFILE_KINDS } from '../src/contracts/launch-plan.js';
import type { PINNED_FILE_VARIABLES } from '../src/contracts/layout.js';
import { ARGUMENT_POLICY, ENVIRONMENT_POLICY } from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';
import { launchDefaultsSettings, refusalLine } from '../src/policy/repository.js';
import { pinnedQwenFacts } from '../src/qwen/versions.js';
import { isPlainObject, type JsonObject } from '../src/text/json.js';
import { parseArgs } from './args.js';
import { checkBroker } from './broker.js';
import { readCredentials } from './credentials.js';
import { buildEnv } from './env.js';
import { installDirFromLauncher } from './install-dir.js';
import { failure, helpText, LAUNCH_EXIT, LaunchError, PROGRAM, rolledBackNotice } from './messages.js';
import { loadPins } from './pins.js';
import {
  ensureQwenHome,
  homePlatform,
  launchDefaultsPath,
  qwenHomePath,
  writeLaunchDefaults,
} from './qwen-home.js';
import { inspectRepository } from './repository.js';
import { type Execve, runQwen } from './run.js';
import { checkTerminal } from './terminal.js';

function writeErr(text: string): void {
  fs.writeSync(2, text);
}

/** A pinned admin JSON file (checksummed by loadPins), as an object. */
function readAdminJson(file: string): JsonObject {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isPlainObject(value)) return value;
  } catch {
    // reported below
  }
  throw failure(`${show(file)} is not a JSON object; re-render the deployment`);
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

async function launch(kind: (typeof PROFILE_KINDS)[number]): Promise<void> {
  const platform = platformOfHost(process.platform);
  const pathOps = platform === 'windows' ? path.win32 : path.posix;
  // Step 2: pins. The bundle's own real path names the install directory.
  const installDir = installDirFromLauncher(__filename, fs, pathOps);
  const pins = loadPins({ installDir, kind, platform, fs, nodeVersionOf });
  const { plan, externalContextActive } = pins;
  // Step 3: terminal.
  checkTerminal({ stdinIsTTY: tty.isatty(0), stdoutIsTTY: tty.isatty(1) });
  // Step 3b: a brokered profile's credential broker is running, its own, and lets this user in.
  if (plan.broker !== undefined) {
    const read = (file: string) => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    };
    await checkBroker(plan, externalContextActive, {
      tables: () => ({ tcp: read('/proc/net/tcp'), tcp6: read('/proc/net/tcp6') }),
      byteOrder: os.endianness(),
      passwd: () => read('/etc/passwd'),
      connect: (host, port) => process.getBuiltinModule('node:net').connect({ host, port }),
    });
  }
  // Step 4: environment. HOME and the Qwen home come from the passwd entry, not from $HOME.
  const user = os.userInfo();
  const layout = homePlatform(process.platform);
  const qwenHome = qwenHomePath(layout, user.homedir, plan.installId, kind);
  const credentials = readCredentials(plan, {
    externalContextActive,
    callerEnv: process.env,
    platform,
    readFile: (file) => fs.readFileSync(file, 'utf8'),
  });
  ensureQwenHome(qwenHome, {
    home: user.homedir,
    uid: user.uid,
    platform: layout,
    fs,
    uniqueSuffix: `${process.pid}.${randomBytes(6).toString('hex')}`,
  });
  const launchDefaults = launchDefaultsPath(layout, qwenHome);
  const env = buildEnv(process.env, plan, ENVIRONMENT_POLICY, {
    home: user.homedir,
    qwenHome,
    credentials,
    platform,
    externalContextActive,
    launchDefaults,
  });
  // Step 4b: what the repository and the user's home would carry into Qwen.
  // The pinned package's own version (checked supported by loadPins); a stand-in cli.js has none.
  const facts = pinnedQwenFacts(pins.qwenVersion);
  const adminFile = (variable: keyof typeof PINNED_FILE_VARIABLES) => plan.environment.files[variable]!;
  const repository = await inspectRepository({
    plan,
    env,
    home: user.homedir,
    qwenHome,
    platform,
    systemSettings: () => readAdminJson(adminFile('QWEN_CODE_SYSTEM_SETTINGS_PATH')),
    qwenVersion: facts.version,
    fs,
    path: pathOps,
    loadProject: () => import('./repository-project.js'),
  });
  if (repository.refused.length > 0) {
    throw failure(
      ...repository.refused.map(refusalLine),
      `${repository.refused.length} thing(s) in the repository or your home would change the managed ${kind} session; nothing was started`,
    );
  }
  const defaults = launchDefaultsSettings(
    readAdminJson(adminFile('QWEN_CODE_SYSTEM_DEFAULTS_PATH')),
    repository.excluded,
    facts.defaultExcludedEnvVars,
  );
  writeLaunchDefaults(launchDefaults, `${JSON.stringify(defaults, null, 2)}\n`, {
    fs,
    uniqueSuffix: `${process.pid}.${randomBytes(6).toString('hex')}`,
  });
  // The one line a rolled-back profile prints, once every check has passed.
  if (!externalContextActive) writeErr(`${rolledBackNotice(kind)}\n`);
  // Steps 5 and 6: working directory and run.
  const execve = (process as { execve?: Execve }).execve;
  runQwen(
    { node: plan.node, argv: pins.argv, env, cwd: plan.cwd },
    {
      platform: process.platform,
      execve: typeof execve === 'function' ? execve.bind(process) : undefined,
      chdir: (dir) => process.chdir(dir),
      // Loaded only on this fallback path: node:child_process alone costs milliseconds at every start.
      spawn: (file, args, options) =>
        process.getBuiltinModule('node:child_process').spawn(file, args, options),
      onSignal: (signal, handler) => process.on(signal, handler),
      offSignal: (signal, handler) => process.off(signal, handler),
      raise: (signal) => process.kill(process.pid, signal),
      exit: (code) => process.exit(code),
      later: (ms, fn) => setTimeout(fn, ms),
      signalNumber: (signal) => os.constants.signals[signal] ?? 0,
      stderr: writeErr,
    },
  );
}

async function main(): Promise<void> {
  // Step 1: arguments.
  const args = parseArgs(process.argv.slice(2), ARGUMENT_POLICY);
  if (args.kind === 'help') {
    fs.writeSync(1, helpText(PROFILE_KINDS));
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
