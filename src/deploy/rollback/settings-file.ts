// Rolling back any Qwen settings file (an upstream-style QWEN_HOME/settings.json, or a hand-made
// system file): remove the managed hooks by name, keeping every other key, hook, comment and the
// formatting (a surgical text edit); optionally restore a saved version-1 provider config over the
// config file Qwen uses. Backups next to each file, atomic replacement, idempotent.
import { lstatSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode } from '../../base/errors.js';
import { EXTERNAL_CONTEXT_HOOKS } from '../../contracts/names.js';
import type { ProcessIds } from '../../host/process-ids.js';
import { JsoncError } from '../../text/jsonc.js';
import { replaceFileAtomically } from '../atomic-file.js';
import { type RemovedHook, removeHooksFromText, SurgicalEditError } from '../jsonc/remove-hooks.js';
import { readSavedV1Config } from './restore-config.js';
import { type FileChange, RollbackError, type RollbackOutcome } from './types.js';

/** The process's effective ids, which rollback run as root switches (POSIX only). */
export type EffectiveIdentity = Pick<
  ProcessIds,
  'geteuid' | 'getegid' | 'getgroups' | 'setgroups' | 'setegid' | 'seteuid'
>;

export interface SettingsRollbackOptions {
  settings: string;
  /** Hook names to remove (default: the external-context hooks). */
  hooks?: readonly string[];
  /** Saved version-1 config to restore over `config`. */
  restoreConfig?: string;
  /** The provider config file Qwen reads (QWEN_EXTERNAL_CONTEXT_CONFIG). */
  config?: string;
  dryRun?: boolean;
  now: string;
  /** This process's ids (none: it acts as it is, as on Windows). */
  identity?: EffectiveIdentity | undefined;
}

/**
 * Refuses a symlink: replacing it by rename would turn the link into a regular file and leave the
 * real file — the one Qwen reads through the link — with the managed hooks. And a file reached through
 * a link in a directory above it: run as root on a user's QWEN_HOME, a link that user put there (their
 * `~/.qwen` pointing at root's or another user's) had root edit and back up a file they cannot write.
 */
async function refuseSymlink(file: string, flag: string): Promise<void> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (stat?.isSymbolicLink() === true) {
    const target = await fs.realpath(file).catch(async () => fs.readlink(file));
    throw new RollbackError(
      `${file} is a symlink to ${target}; nothing was changed. Fix: pass the real file (${flag} ${target})`,
    );
  }
  const dir = path.resolve(path.dirname(file));
  const real = await fs.realpath(dir).catch(() => dir);
  if (real === dir) return;
  const target = path.join(real, path.basename(file));
  throw new RollbackError(
    `${file} is reached through a symlink (${dir} is ${real}); nothing was changed. Fix: pass the real file (${flag} ${target}), after checking that it is the one you mean — whoever owns the link chose it`,
  );
}

interface Identity {
  uid: number;
  gid: number;
  /** The directory that makes it the one to act as. */
  dir: string;
}

/**
 * The owner of the nearest directory at or above `dir` that root does not own: whoever may rename
 * entries there could swap a directory for a link after refuseSymlink looked, and root's write would
 * follow it. Acting as them, such a swap only reaches what they could write anyway.
 */
function ownerWhoMaySwap(dir: string): Identity | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat !== undefined && stat.uid !== 0) return { uid: stat.uid, gid: stat.gid, dir: current };
    // Root's own directory that its group or everyone may write (not sticky): any of them could swap an
    // entry for a link, and no single user to act as keeps root's write to what they could write anyway.
    if (stat !== undefined && (stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0)
      throw new RollbackError(
        `${current} is root's but ${(stat.mode & 0o002) !== 0 ? 'everyone' : `its group (gid ${stat.gid})`} may write it (mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}): whoever may could swap a directory for a link after rollback looked, and root's write would follow it; nothing was changed. Fix: remove that write permission (chmod go-w ${current}), or run rollback as the user the file belongs to`,
      );
    if (current === path.dirname(current)) return undefined;
  }
}

/** Runs `work` with `who` as the effective user and group (root only), then back to root. */
async function actingAs<T>(
  ids: EffectiveIdentity | undefined,
  who: Identity | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (ids === undefined || who === undefined) return work();
  const groups = ids.getgroups();
  const egid = ids.getegid();
  try {
    ids.setgroups([who.gid]);
    ids.setegid(who.gid);
    ids.seteuid(who.uid);
  } catch (error) {
    // A root without the capability (a user namespace): nothing was read or written yet.
    ids.setegid(egid);
    ids.setgroups(groups);
    throw new RollbackError(
      `cannot act as uid ${who.uid}, the owner of ${who.dir} (${(error as Error).message}); nothing was changed. Fix: run rollback as that user (runuser -u <user> -- qwen-managed rollback …)`,
    );
  }
  try {
    return await work();
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    throw new RollbackError(
      `${(error as Error).message}: rollback as root edits a file in a directory uid ${who.uid} owns (${who.dir}) as uid ${who.uid}, who may not do this; nothing more was changed. Fix: let uid ${who.uid} own the file and its directory, or pass the real file in a directory only root can change`,
    );
  } finally {
    ids.seteuid(0);
    ids.setegid(egid);
    ids.setgroups(groups);
  }
}

export async function rollbackSettingsFile(options: SettingsRollbackOptions): Promise<RollbackOutcome> {
  // Read as root: a saved config may sit where only root reads it; it is never written.
  const restored =
    options.restoreConfig === undefined ? undefined : await readSavedV1Config(options.restoreConfig);
  let who: Identity | undefined;
  if (options.identity?.geteuid() === 0) {
    const owners: Identity[] = [];
    for (const file of [options.settings, restored === undefined ? undefined : options.config]) {
      const owner = file === undefined ? undefined : ownerWhoMaySwap(path.dirname(path.resolve(file)));
      if (owner !== undefined) owners.push(owner);
    }
    if (owners.some((o) => o.uid !== owners[0]!.uid))
      throw new RollbackError(
        `--settings and --config are in directories different users own (${owners.map((o) => `${o.dir}: uid ${o.uid}`).join(', ')}); nothing was changed. Fix: roll back each user's files separately, as that user`,
      );
    who = owners[0];
  }
  return actingAs(options.identity, who, () => rollbackAs(options, restored));
}

async function rollbackAs(
  options: SettingsRollbackOptions,
  restored: Buffer | undefined,
): Promise<RollbackOutcome> {
  await refuseSymlink(options.settings, '--settings');
  if (options.restoreConfig !== undefined && options.config !== undefined)
    await refuseSymlink(options.config, '--config');
  const before = await fs.readFile(options.settings, 'utf8').catch(() => undefined);
  if (before === undefined) throw new RollbackError(`cannot read the settings file ${options.settings}`);
  let edited: { text: string; removed: RemovedHook[] };
  try {
    edited = removeHooksFromText(before, options.hooks ?? EXTERNAL_CONTEXT_HOOKS);
  } catch (error) {
    if (error instanceof JsoncError || error instanceof SurgicalEditError)
      throw new RollbackError(`${options.settings}: ${error.message}`);
    throw error;
  }
  const changes: FileChange[] = [];
  if (edited.text !== before) changes.push({ file: options.settings, before, after: edited.text });

  if (restored !== undefined) {
    if (options.config === undefined)
      throw new RollbackError('--restore-config needs --config <the provider config file Qwen reads>');
    const current = await fs.readFile(options.config).catch(() => undefined);
    if (current === undefined || !current.equals(restored)) {
      changes.push({
        file: options.config,
        before: current?.toString('utf8') ?? '',
        after: restored.toString('utf8'),
      });
    }
  }

  const outcome: RollbackOutcome = { changes, removedHooks: edited.removed, written: false, backups: [] };
  if (changes.length === 0 || options.dryRun === true) return outcome;
  for (const change of changes) {
    const content = change.file === options.settings ? change.after : restored!;
    const { backup } = await replaceFileAtomically(change.file, content, options.now);
    if (backup !== undefined) outcome.backups.push(backup);
  }
  outcome.written = true;
  return outcome;
}
