// A throwaway non-root user for permission scenarios (CI runs as root).

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export const DEFAULT_TEST_USER = 'qwen-e2e';

/** The commands the throwaway users are made and removed with (Debian: passwd, libc-bin, procps). */
const USER_COMMANDS = ['useradd', 'usermod', 'userdel', 'getent', 'ps'] as const;

function onPath(command: string, path: string): boolean {
  return path.split(':').some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Why throwaway users cannot be made in this process, in one line, or undefined when they can. The
 * suites that need one fail with this line: a permission scenario is never skipped quietly.
 */
export function throwawayUsersUnavailable(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const uid = process.getuid?.();
  if (uid !== 0) {
    return `these tests run Qwen as a throwaway non-root user, which only root can create (this run is uid ${uid ?? 'unknown'}): run them as root`;
  }
  const path = env['PATH'] ?? '';
  const missing = USER_COMMANDS.filter((command) => !onPath(command, path));
  if (missing.length > 0) {
    return `these tests create throwaway users with ${missing.join(', ')}, not found on PATH=${path}: apt-get install passwd procps, or add /usr/sbin to PATH`;
  }
  return undefined;
}

/** Throws `throwawayUsersUnavailable()`'s line when throwaway users cannot be made. */
export function requireThrowawayUsers(): void {
  const reason = throwawayUsersUnavailable();
  if (reason !== undefined) throw new Error(reason);
}

function lookup(name: string): TestUser | undefined {
  const result = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  const fields = result.stdout.trim().split(':');
  if (fields.length < 7) return undefined;
  return {
    name,
    uid: Number(fields[2]),
    gid: Number(fields[3]),
    home: fields[5] ?? '',
    shell: fields[6] ?? '',
  };
}

/**
 * Returns the user `name`, creating it with `useradd` (own group, home directory, bash) when it
 * does not exist. Idempotent and safe against a concurrent creation. Requires root.
 */
export function ensureTestUser(name: string = DEFAULT_TEST_USER): TestUser {
  if (!/^[a-z_][a-z0-9_-]{0,30}$/.test(name)) throw new Error(`invalid user name ${JSON.stringify(name)}`);
  const existing = lookup(name);
  if (existing) return existing;
  requireThrowawayUsers();
  const result = spawnSync('useradd', ['--create-home', '--user-group', '--shell', '/bin/bash', name], {
    encoding: 'utf8',
  });
  const created = lookup(name);
  if (!created) {
    throw new Error(`useradd ${name} failed (exit ${result.status}): ${result.stderr.trim()}`);
  }
  if (created.uid === 0) throw new Error(`test user ${name} has uid 0`);
  return created;
}

/** Prefix of the per-run throwaway users made by `createThrowawayUser`. */
export const THROWAWAY_PREFIX = 'qme2e';

/**
 * Creates a fresh non-root user `qme2e<6 hex>` whose passwd home is `home` (created here, empty,
 * mode 0700, owned by the user; its parent must exist and be traversable). Nothing is written under
 * /home or /root. Remove it with `removeThrowawayUser` once no process of it runs. Requires root.
 */
export function createThrowawayUser(home: string): TestUser {
  requireThrowawayUsers();
  sweepStaleThrowawayUsers();
  for (let attempt = 0; attempt < 5; attempt++) {
    const name = `${THROWAWAY_PREFIX}${randomBytes(3).toString('hex')}`;
    if (lookup(name)) continue;
    const result = spawnSync(
      'useradd',
      ['--home-dir', home, '--no-create-home', '--user-group', '--shell', '/bin/bash', name],
      { encoding: 'utf8' },
    );
    const created = lookup(name);
    if (!created) throw new Error(`useradd ${name} failed (exit ${result.status}): ${result.stderr.trim()}`);
    if (created.uid === 0) throw new Error(`throwaway user ${name} has uid 0`);
    mkdirSync(home, { mode: 0o700 });
    chmodSync(home, 0o700);
    chownSync(home, created.uid, created.gid);
    return created;
  }
  throw new Error('could not pick a free throwaway user name');
}

/** Deletes a throwaway user and its group (not its home: that lives in the test's temp dir). */
export function removeThrowawayUser(user: TestUser): void {
  if (!user.name.startsWith(THROWAWAY_PREFIX)) throw new Error(`${user.name} is not a throwaway user`);
  const result = spawnSync('userdel', [user.name], { encoding: 'utf8' });
  if (result.status !== 0 && lookup(user.name)) {
    throw new Error(`userdel ${user.name} failed (exit ${result.status}): ${result.stderr.trim()}`);
  }
}

/** A throwaway home made by the managed e2e suites: `/tmp/qme2e-<label>-<6 chars>/home`. */
const THROWAWAY_HOME = /^\/tmp\/qme2e-[a-z-]+-[A-Za-z0-9]{6}\/home$/;
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

function runsProcesses(uid: number): boolean {
  const result = spawnSync('ps', ['-U', String(uid), '-o', 'pid='], { encoding: 'utf8' });
  return result.stdout.trim() !== '';
}

/**
 * Deletes throwaway users left by an earlier, killed run: those whose home directory is gone, and
 * those whose suite temp dir is over 6 hours old with no process running as them (the temp dir is
 * removed too).
 */
export function sweepStaleThrowawayUsers(): void {
  const result = spawnSync('getent', ['passwd'], { encoding: 'utf8' });
  for (const line of result.stdout.split('\n')) {
    const [name, , uid, , , home] = line.split(':');
    if (name === undefined || uid === undefined || home === undefined) continue;
    if (!new RegExp(`^${THROWAWAY_PREFIX}[0-9a-f]{6}$`).test(name)) continue;
    if (!existsSync(home)) {
      spawnSync('userdel', [name], { encoding: 'utf8' });
      continue;
    }
    const root = dirname(home);
    if (!THROWAWAY_HOME.test(home) || Date.now() - statSync(root).mtimeMs < STALE_AFTER_MS) continue;
    if (runsProcesses(Number(uid))) continue;
    spawnSync('userdel', [name], { encoding: 'utf8' });
    rmSync(root, { recursive: true, force: true });
  }
}
