// A throwaway non-root user for permission scenarios (CI runs as root).

import { spawnSync } from 'node:child_process';

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
