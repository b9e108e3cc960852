// A throwaway non-root user for permission scenarios (CI runs as root).

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export const DEFAULT_TEST_USER = 'qwen-e2e';

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
  if (process.getuid?.() !== 0) throw new Error(`creating test user ${name} needs root`);
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
  if (process.getuid?.() !== 0) throw new Error('creating a throwaway user needs root');
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
