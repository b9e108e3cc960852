// launch-qwen: the only file of the launcher that touches the process. It wires the six steps in
// order — arguments, pins, terminal, environment, working directory, run — and nothing is started
// before every check has passed.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tty from 'node:tty';
import packageJson from '../package.json' with { type: 'json' };
import { PROFILE_KINDS } from '../src/deploy/launch-plan.js';
import { ARGUMENT_POLICY, ENVIRONMENT_POLICY } from '../src/policy/policies.js';
import { parseArgs } from './args.js';
import { readCredentials } from './credentials.js';
import { buildEnv } from './env.js';
import { installDirFromLauncher } from './install-dir.js';
import { helpText, LAUNCH_EXIT, LaunchError, PROGRAM, rolledBackNotice } from './messages.js';
import { loadPins, type PlanPlatform } from './pins.js';
import { ensureQwenHome, homePlatform, qwenHomePath } from './qwen-home.js';
import { type Execve, runQwen } from './run.js';
import { checkTerminal } from './terminal.js';

function writeErr(text: string): void {
  fs.writeSync(2, text);
}

function launch(kind: (typeof PROFILE_KINDS)[number]): void {
  const platform: PlanPlatform = process.platform === 'win32' ? 'windows' : 'posix';
  const pathOps = platform === 'windows' ? path.win32 : path.posix;
  // Step 2: pins. The bundle's own real path names the install directory.
  const installDir = installDirFromLauncher(__filename, fs, pathOps);
  const pins = loadPins({ installDir, kind, platform, fs });
  const { plan, externalContextActive } = pins;
  // Step 3: terminal.
  checkTerminal({ stdinIsTTY: tty.isatty(0), stdoutIsTTY: tty.isatty(1) });
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
  const env = buildEnv(process.env, plan, ENVIRONMENT_POLICY, {
    home: user.homedir,
    qwenHome,
    credentials,
    platform,
    externalContextActive,
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

function main(): void {
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
    launch(args.profile);
  } catch (error) {
    if (error instanceof LaunchError) {
      for (const problem of error.problems) writeErr(`${PROGRAM}: ${problem}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    // Anything unforeseen still refuses to start Qwen, with exit code 1 and no stack dump.
    writeErr(`${PROGRAM}: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = LAUNCH_EXIT.failure;
  }
}

main();
