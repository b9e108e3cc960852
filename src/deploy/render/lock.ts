// One writer at a time per install tree: render and rollback hold `<dir>/.qwen-managed.lock` from
// reading the tree until the manifest is written, so two renders (or a render and a rollback) never
// interleave their writes. A second writer refuses (exit 1) instead of waiting. A lock left by a
// killed process on this machine (its pid no longer runs) is taken over. While held (or left stale)
// the lock is an unlisted file: verify reports it, the next render or rollback removes it.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { AdminInputError } from '../../base/errors.js';

export const LOCK_FILE = '.qwen-managed.lock';

export class LockedError extends AdminInputError {
  override readonly name = 'LockedError';
}

export interface InstallLock {
  readonly dir: string;
  release(): Promise<void>;
}

interface LockContent {
  pid: number;
  host: string;
  nonce: string;
  startedAt: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The holder a lock file names, or undefined when its text is not one (empty, `null`, `{}`, a pid
 * that is no pid): read like an empty lock, so it is abandoned after the grace period.
 */
export function parseLock(text: string): LockContent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { pid, host, nonce, startedAt } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (!isText(host) || !isText(nonce) || !isText(startedAt)) return undefined;
  return { pid, host, nonce, startedAt };
}

async function readLock(file: string): Promise<LockContent | undefined> {
  try {
    return parseLock(await fs.readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How long a lock may stay unreadable before it counts as abandoned (its writer needs microseconds). */
const UNREADABLE_GRACE_MS = 200;

/**
 * The holder, or `abandoned` for a lock that is still unreadable (or not a lock) after the grace period: creating
 * the file and writing its content are two steps, and a writer killed between them leaves it empty.
 */
async function readLockSettled(file: string): Promise<LockContent | 'abandoned' | undefined> {
  const holder = await readLock(file);
  if (holder !== undefined) return holder;
  await new Promise((resolve) => setTimeout(resolve, UNREADABLE_GRACE_MS));
  const again = await readLock(file);
  if (again !== undefined) return again;
  // Gone meanwhile (released): not abandoned, just free — the caller's next attempt takes it.
  return (await fs.stat(file).catch(() => undefined)) === undefined ? undefined : 'abandoned';
}

/** A lock left by a process of this machine that no longer runs. */
function isStale(holder: LockContent): boolean {
  return holder.host === os.hostname() && !alive(holder.pid);
}

function heldBy(dir: string, holder: LockContent | undefined): LockedError {
  const who =
    holder === undefined
      ? 'another process'
      : `pid ${holder.pid} on ${holder.host}, since ${holder.startedAt}`;
  return new LockedError(
    `another render or rollback is writing ${dir} (${who}); wait for it to finish, or remove ${path.join(dir, LOCK_FILE)} if that process is gone`,
  );
}

/** Refuses when a live process holds the lock (a stale lock is left alone: this only reads). */
export async function assertNotLocked(dir: string): Promise<void> {
  const holder = await readLock(path.join(dir, LOCK_FILE));
  if (holder !== undefined && !isStale(holder)) throw heldBy(dir, holder);
}

export async function acquireInstallLock(dir: string, now: string): Promise<InstallLock> {
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, LOCK_FILE);
  const mine: LockContent = {
    pid: process.pid,
    host: os.hostname(),
    nonce: randomBytes(8).toString('hex'),
    startedAt: now,
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, `${JSON.stringify(mine)}\n`, { flag: 'wx', mode: 0o644 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readLockSettled(file);
      // Released while we looked: try again.
      if (holder === undefined) continue;
      if (holder !== 'abandoned' && !isStale(holder)) throw heldBy(dir, holder);
      // Take over a lock whose owner was killed; re-read below, so a racing taker-over loses cleanly.
      await fs.rm(file, { force: true });
      continue;
    }
    const check = await readLock(file);
    if (check?.nonce !== mine.nonce)
      throw new LockedError(`another render or rollback took the lock of ${dir} first`);
    return {
      dir,
      async release() {
        if ((await readLock(file))?.nonce === mine.nonce) await fs.rm(file, { force: true });
      },
    };
  }
  throw new LockedError(`cannot take the lock of ${dir}`);
}

export async function withInstallLock<T>(
  dir: string,
  now: string,
  body: (lock: InstallLock) => Promise<T>,
): Promise<T> {
  const lock = await acquireInstallLock(dir, now);
  try {
    return await body(lock);
  } finally {
    await lock.release();
  }
}
