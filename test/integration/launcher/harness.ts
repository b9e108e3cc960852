// Shared pieces of the launcher integration tests: the launcher bundle (one file, with scripts/build.mjs's
// runtime options), a throwaway non-root user (the launcher writes QWEN_HOME under the passwd home, which
// must not be /root), a stub "Qwen" that records what it was given, and process bookkeeping.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { RUNTIME_BUNDLE_OPTIONS } from '../../../scripts/build.mjs';
import { ensureE2eToolchain, node22, repoRoot } from '../../e2e/harness/paths.js';
import { TerminalSession } from '../../e2e/harness/terminal.js';
import { requireThrowawayUsers } from '../../e2e/harness/users.js';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/**
 * launcher/launch-qwen.ts as one self-contained file, with the options scripts/build.mjs bundles the runtimes
 * with. Unlike the install, the repository checks (launch-repository.js there) are inlined: the
 * install fixtures copy this one file.
 */
export async function bundleLauncher(outFile: string): Promise<void> {
  await build({
    ...RUNTIME_BUNDLE_OPTIONS,
    entryPoints: [path.join(repoRoot, 'launcher', 'launch-qwen.ts')],
    outfile: outFile,
  });
}

const USER_PREFIX = 'qmlt-';

/** Users left by an earlier, interrupted run: their temporary home is gone. */
function removeStaleTestUsers(): void {
  for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , , , , home] = line.split(':');
    if (name?.startsWith(USER_PREFIX) && home !== undefined && !fs.existsSync(home))
      spawnSync('userdel', [name]);
  }
}

/**
 * Creates a locked, shell-less user whose passwd home is `home`. The name carries this process's pid,
 * so test runs started at the same time on one machine never share (or delete) each other's user.
 */
export function ensureTestUser(tag: string, home: string): TestUser {
  requireThrowawayUsers();
  removeStaleTestUsers();
  const name = `${USER_PREFIX}${tag}-${process.pid}`;
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const exists = spawnSync('getent', ['passwd', name]).status === 0;
  if (exists) execFileSync('usermod', ['--home', home, name]);
  else
    execFileSync('useradd', [
      '--no-create-home',
      '--home-dir',
      home,
      '--shell',
      '/usr/sbin/nologin',
      '--user-group',
      name,
    ]);
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  fs.chownSync(home, uid, gid);
  return { name, uid, gid, home };
}

export function removeTestUser(user: TestUser | undefined): void {
  if (user !== undefined) spawnSync('userdel', [user.name]);
}

/** Node 22 (has process.execve) from the e2e toolchain; installed by scripts/e2e/setup.mjs when missing. */
export function node22Binary(): string {
  return fs.existsSync(node22) ? node22 : ensureE2eToolchain().node22;
}

/**
 * A root-owned copy (hard link when possible) of a node binary inside the fixture tree, so the
 * pinned node's directory chain is known to pass StrictModes and the test user can reach it.
 */
export function pinNode(source: string, target: string): string {
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
    fs.chmodSync(target, 0o755);
  }
  return target;
}

export interface StubBehavior {
  /** Exit with this code right after recording (default 0). */
  exitCode?: number;
  /** Record, print `STUB READY`, then wait for a signal, record it and die by it. */
  waitForSignal?: boolean;
}

export interface StubRecord {
  argv: string[];
  execPath: string;
  env: Record<string, string>;
  cwd: string;
  stdinTTY: boolean;
  stdoutTTY: boolean;
  pid: number;
  ppid: number;
  uid: number;
}

export interface Stub {
  cli: string;
  record: string;
  signalRecord: string;
}

/**
 * Writes `<root>/qwen/cli.js`, a stand-in for Qwen's cli.js that records argv, env, cwd and whether
 * stdin/stdout are TTYs into `<root>/records/record.json` (a directory the test user owns).
 */
export function writeStubQwen(root: string, behavior: StubBehavior, user: TestUser): Stub {
  const records = path.join(root, 'records');
  fs.mkdirSync(records, { recursive: true, mode: 0o755 });
  fs.chownSync(records, user.uid, user.gid);
  const record = path.join(records, 'record.json');
  const signalRecord = path.join(records, 'signal.txt');
  const cli = path.join(root, 'qwen', 'cli.js');
  fs.mkdirSync(path.dirname(cli), { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(root, 'qwen', 'package.json'), '{"type":"commonjs"}\n', { mode: 0o644 });
  const source = `'use strict';
const fs = require('node:fs');
const tty = require('node:tty');
const RECORD = ${JSON.stringify(record)};
const SIGNAL_RECORD = ${JSON.stringify(signalRecord)};
const BEHAVIOR = ${JSON.stringify(behavior)};
const data = {
  argv: process.argv.slice(1),
  execPath: process.execPath,
  env: { ...process.env },
  cwd: process.cwd(),
  stdinTTY: tty.isatty(0),
  stdoutTTY: tty.isatty(1),
  pid: process.pid,
  ppid: process.ppid,
  uid: process.getuid(),
};
fs.writeFileSync(RECORD + '.tmp', JSON.stringify(data));
fs.renameSync(RECORD + '.tmp', RECORD);
if (BEHAVIOR.waitForSignal) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      fs.writeFileSync(SIGNAL_RECORD, signal);
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    });
  }
  process.stdout.write('STUB READY\\n');
  setInterval(() => {}, 1000);
} else {
  process.stdout.write('STUB DONE\\n');
  process.exitCode = BEHAVIOR.exitCode ?? 0;
}
`;
  fs.writeFileSync(cli, source, { mode: 0o644 });
  return { cli, record, signalRecord };
}

export function readRecord(stub: Stub): StubRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(stub.record, 'utf8')) as StubRecord;
  } catch {
    return undefined;
  }
}

/** Processes (not this one) whose command line mentions `marker`, e.g. the tests' temp directory. */
export function processesMentioning(marker: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) [ZX] /.test(state)) continue;
    } catch {
      continue;
    }
    if (cmdline.includes(marker)) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

/** Tracks every pty session a test starts, so afterEach can end them all. */
export class Sessions {
  private readonly open: TerminalSession[] = [];

  start(
    argv: [string, ...string[]],
    env: Record<string, string>,
    user: TestUser,
    cwd: string,
  ): TerminalSession {
    const session = TerminalSession.spawn({
      argv,
      env,
      cwd,
      uid: user.uid,
      gid: user.gid,
      cols: 200,
      rows: 50,
    });
    this.open.push(session);
    return session;
  }

  async killAll(): Promise<void> {
    for (const session of this.open.splice(0)) await session.kill();
  }
}

/** What every launcher suite runs in; the fields are set once the suite's first beforeAll has run. */
export interface LauncherSuite {
  /** A fresh temporary directory (real path, mode 0755): fixtures, bundle and the user's home. */
  base: string;
  user: TestUser;
  /** The launcher bundle, built into `<base>/bundle/launch-qwen.js`. */
  bundle: string;
  sessions: Sessions;
}

/**
 * Registers the hooks every launcher suite shares — before all: the temporary base, a throwaway user
 * whose home is `<base>/home` and the bundle; after each: every pty session ended and no process
 * started from the base left alive; after all: the user and the base removed. Call at the top level.
 */
export function launcherSuite(prefix: string, userTag: string): LauncherSuite {
  const suite = { sessions: new Sessions() } as LauncherSuite;
  beforeAll(async () => {
    suite.base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    fs.chmodSync(suite.base, 0o755);
    suite.user = ensureTestUser(userTag, path.join(suite.base, 'home'));
    suite.bundle = path.join(suite.base, 'bundle', 'launch-qwen.js');
    await bundleLauncher(suite.bundle);
  });
  afterEach(async () => {
    await suite.sessions.killAll();
    // No test leaves a process behind: nothing started from this run's directory is still alive.
    expect(processesMentioning(suite.base)).toEqual([]);
  });
  afterAll(() => {
    removeTestUser(suite.user);
    fs.rmSync(suite.base, { recursive: true, force: true });
  });
  return suite;
}

/** Waits for `session` to end; its exit and everything it printed, with `\r\n` read as `\n`. */
export async function finished(session: TerminalSession) {
  const exit = await session.waitForExit();
  await session.flush();
  return { exit, output: session.rawOutput().replaceAll('\r\n', '\n') };
}
