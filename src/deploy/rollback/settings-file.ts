// Rolling back any Qwen settings file (an upstream-style QWEN_HOME/settings.json, or a hand-made
// system file): remove the managed hooks by name, keeping every other key, hook, comment and the
// formatting (a surgical text edit); optionally restore a saved version-1 provider config over the
// config file Qwen uses. Backups next to each file, atomic replacement, idempotent.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { EXTERNAL_CONTEXT_HOOKS } from '../../contracts/names.js';
import { JsoncError } from '../../text/jsonc.js';
import { replaceFileAtomically } from '../atomic-file.js';
import { type RemovedHook, removeHooksFromText, SurgicalEditError } from '../jsonc/remove-hooks.js';
import { readSavedV1Config } from './restore-config.js';
import { type FileChange, RollbackError, type RollbackOutcome } from './types.js';

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

export async function rollbackSettingsFile(options: SettingsRollbackOptions): Promise<RollbackOutcome> {
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

  let restored: Buffer | undefined;
  if (options.restoreConfig !== undefined) {
    if (options.config === undefined)
      throw new RollbackError('--restore-config needs --config <the provider config file Qwen reads>');
    restored = await readSavedV1Config(options.restoreConfig);
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
