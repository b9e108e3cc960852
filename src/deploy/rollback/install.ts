// Rolling back one profile of an install directory: remove its external-context hook (and, on
// request, the approval guard) from profiles/<kind>/system-settings.json by name, optionally restore
// a saved version-1 provider config over external-context.json, record both in rollback.json, and
// re-hash the changed files into manifest.json with the profile marked rolled back. Written with the
// same atomic writer as render (backups under backups/, manifest last). Idempotent.

import * as path from 'node:path';
import { sha256Hex } from '../../base/hash.js';
import { type InstallManifest, MANIFEST_FILE } from '../../contracts/install-manifest.js';
import { type AnyProfileKind, OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import {
  OPENCLAW_PLUGIN_PACKAGE,
  OPENCLAW_PROFILE_FILES,
  PROFILE_FILES,
  profileRel,
} from '../../contracts/layout.js';
import { EXTERNAL_CONTEXT_HOOKS, HOOK_APPROVAL_GUARD, OPENCLAW_PLUGIN_ID } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';
import { JsoncError } from '../../text/jsonc.js';
import { TEMP_MARKER } from '../atomic-file.js';
import { othersMayChange } from '../foreign-directory.js';
import { renderJson } from '../json.js';
import { type RemovedHook, removeHooksFromText } from '../jsonc/remove-hooks.js';
import {
  assertNotLocked,
  type InstallLock,
  LOCK_FILE,
  LockedError,
  withInstallLock,
} from '../render/lock.js';
import { fileMode, manifestText } from '../render/manifest.js';
import { withoutPlugin } from '../render/openclaw.js';
import { parseRollbackRecord, type RollbackRecord, rollbackRecordText } from '../render/rollback-record.js';
import type { RenderedFile } from '../render/types.js';
import { FILE_MODE } from '../render/types.js';
import { writeInstall } from '../render/writer.js';
import { isDirectory, loadInstallTree, notAnInstallTree } from '../tree.js';
import { readSavedV1Config } from './restore-config.js';
import { type FileChange, RollbackError, type RollbackOutcome } from './types.js';

export interface InstallRollbackOptions {
  dir: string;
  kind: AnyProfileKind;
  /** A saved version-1 provider config to restore over the profile's external-context.json. */
  restoreConfig?: string;
  /** Also remove the approval guard (default rollback removes only the external-context hooks). */
  removeGuard?: boolean;
  dryRun?: boolean;
  now: string;
  /** Compare file modes with the manifest (false on a Windows host, where POSIX modes mean nothing). */
  checkModes?: boolean;
  /**
   * The uid trusted besides root to own the tree's directories and those above it (POSIX: whoever runs
   * rollback); undefined skips that check (a Windows host, where ACLs decide).
   */
  trustedUid?: number;
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

export async function rollbackInstall(options: InstallRollbackOptions): Promise<RollbackOutcome> {
  if (!(await isDirectory(options.dir))) throw new RollbackError(`${options.dir} is not a directory`);
  // Before anything under it is read: `--dir /` would otherwise walk the whole disk.
  const notInstall = notAnInstallTree(options.dir);
  if (notInstall !== undefined) throw new RollbackError(notInstall);
  // Rollback writes as root like render: a tree others may change is refused as render refuses it.
  if (options.trustedUid !== undefined) {
    const problems = othersMayChange(options.dir, options.trustedUid);
    if (problems.length > 0)
      throw new RollbackError(
        `--dir ${options.dir} is in a directory others may change, so nothing was changed: ${problems.join('; ')}. Fix: correct the owner and modes as said (or render the deployment again into a directory only root, or you, can write), then roll back`,
      );
  }
  try {
    // Read-only first: a refusal (another writer, a tree that does not match its manifest) changes
    // nothing at all, not even a stale lock left by a killed render.
    await assertNotLocked(options.dir);
    const planned = await rollbackLocked(options, undefined);
    if (options.dryRun === true || planned.changes.length === 0) return planned;
    // Then for real, holding the install lock from reading the tree to writing the manifest.
    return await withInstallLock(options.dir, options.now, (lock) => rollbackLocked(options, lock));
  } catch (error) {
    if (error instanceof LockedError) throw new RollbackError(error.message);
    throw error;
  }
}

/** Files a killed render or rollback may leave behind: never carried into the manifest. */
function isWriterArtifact(rel: string): boolean {
  return rel === LOCK_FILE || path.posix.basename(rel).includes(TEMP_MARKER);
}

async function rollbackLocked(
  options: InstallRollbackOptions,
  lock: InstallLock | undefined,
): Promise<RollbackOutcome> {
  const { dir, kind } = options;
  const tree = await loadInstallTree(dir);
  const manifest = tree.manifest;
  if (manifest === undefined)
    throw new RollbackError(`${dir} has no valid ${MANIFEST_FILE}: not a rendered install`);
  const profileState = manifest.profiles[kind];
  if (profileState === undefined) {
    throw new RollbackError(
      `profile ${kind} is not deployed in ${dir} (deployed: ${Object.keys(manifest.profiles).join(', ') || 'none'})`,
    );
  }
  // Never vouch for a tree render did not write: every listed file must still have the bytes and the
  // mode the manifest says, and nothing unlisted may sit beside them (an interrupted render or
  // tampering is for verify and a re-render to sort out; re-hashing it would record the tampering).
  const differences: string[] = [];
  for (const [rel, entry] of Object.entries(manifest.files)) {
    const file = tree.files.get(rel);
    if (file === undefined) differences.push(`${rel} is missing`);
    else if (sha256Hex(file.bytes) !== entry.sha256) differences.push(`${rel} has other bytes`);
    else if (options.checkModes !== false && fileMode(file.mode) !== entry.mode)
      differences.push(`${rel} has mode ${fileMode(file.mode)}, not ${entry.mode}`);
  }
  for (const rel of tree.files.keys()) {
    if (rel !== MANIFEST_FILE && !isWriterArtifact(rel) && !Object.hasOwn(manifest.files, rel))
      differences.push(`${rel} is not listed`);
  }
  for (const rel of tree.irregular) differences.push(`${rel} is not a regular file`);
  if (differences.length > 0) {
    const shown =
      differences.slice(0, 5).join('; ') +
      (differences.length > 5 ? `; and ${differences.length - 5} more` : '');
    throw new RollbackError(
      `${dir} differs from its manifest.json (${shown}): an interrupted render, or tampering; nothing was changed. Fix: run \`qwen-managed verify --dir ${dir}\` to see every difference, re-render the deployment (or restore the files), then roll back`,
    );
  }

  const openclaw = kind === OPENCLAW_PROFILE;
  if (openclaw && options.restoreConfig !== undefined) {
    throw new RollbackError(
      '--restore-config restores a version-1 MCP config; the openclaw-recall profile has none',
    );
  }
  // The OpenClaw profile's "settings" are openclaw.json, and what is removed by name is the plugin.
  const settingsRel = profileRel(
    kind,
    openclaw ? OPENCLAW_PROFILE_FILES.config : PROFILE_FILES.systemSettings,
  );
  const configRel = profileRel(kind, PROFILE_FILES.providerConfig);
  const recordRel = profileRel(kind, PROFILE_FILES.rollbackRecord);
  const names: string[] = openclaw
    ? []
    : [...EXTERNAL_CONTEXT_HOOKS, ...(options.removeGuard === true ? [HOOK_APPROVAL_GUARD] : [])];
  const settingsBefore = decode(tree.files.get(settingsRel)?.bytes ?? new Uint8Array());
  let removed: { text: string; removed: RemovedHook[] };
  try {
    removed = openclaw ? removePlugin(settingsBefore) : removeHooksFromText(settingsBefore, names);
  } catch (error) {
    if (error instanceof JsoncError) throw new RollbackError(`${settingsRel}: ${error.message}`);
    throw error;
  }

  const previousRecordBytes = Object.hasOwn(manifest.files, recordRel)
    ? tree.files.get(recordRel)?.bytes
    : undefined;
  const previousRecord: RollbackRecord | undefined =
    previousRecordBytes === undefined ? undefined : parseRollbackRecord(decode(previousRecordBytes));
  if (previousRecordBytes !== undefined && previousRecord === undefined) {
    throw new RollbackError(`${recordRel} is not a valid rollback record`);
  }
  const record: RollbackRecord = {
    version: 1,
    removedHooks: [
      ...new Set([...(previousRecord?.removedHooks ?? []), ...names]),
    ] as RollbackRecord['removedHooks'],
  };
  const restoredSha = previousRecord?.restoredConfigSha256;
  if (restoredSha !== undefined) record.restoredConfigSha256 = restoredSha;

  const files = new Map<string, RenderedFile>();
  for (const [rel, file] of tree.files) {
    if (rel !== MANIFEST_FILE && !isWriterArtifact(rel))
      files.set(rel, { bytes: file.bytes, mode: file.mode });
  }
  const edited = new Set<string>();
  const set = (rel: string, content: string | Uint8Array) => {
    edited.add(rel);
    files.set(rel, {
      bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content,
      mode: files.get(rel)?.mode ?? FILE_MODE,
    });
  };
  set(settingsRel, removed.text);
  if (options.restoreConfig !== undefined) {
    const saved = await readSavedV1Config(options.restoreConfig);
    set(configRel, saved);
    record.restoredConfigSha256 = sha256Hex(saved);
  }
  set(recordRel, rollbackRecordText(record));

  // Only the files rollback wrote are re-hashed; every other entry stays exactly as render wrote it.
  const entries = { ...manifest.files };
  for (const rel of edited)
    entries[rel] = { sha256: sha256Hex(files.get(rel)!.bytes), mode: fileMode(files.get(rel)!.mode) };
  const next: InstallManifest = {
    ...manifest,
    files: Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    profiles: {
      ...manifest.profiles,
      [kind]:
        profileState.state === 'rolled-back'
          ? profileState
          : { state: 'rolled-back', changedAt: options.now },
    },
  };
  const nextManifestText = manifestText(next);

  const changes: FileChange[] = [];
  for (const rel of [settingsRel, configRel, recordRel]) {
    const before = tree.files.get(rel);
    const after = files.get(rel);
    if (after !== undefined && (before === undefined || !before.bytes.equals(after.bytes))) {
      changes.push({
        file: rel,
        before: before === undefined ? '' : decode(before.bytes),
        after: decode(after.bytes),
      });
    }
  }
  const manifestBefore = decode(tree.files.get(MANIFEST_FILE)!.bytes);
  if (manifestBefore !== nextManifestText)
    changes.push({ file: MANIFEST_FILE, before: manifestBefore, after: nextManifestText });

  const outcome: RollbackOutcome = { changes, removedHooks: removed.removed, written: false, backups: [] };
  if (changes.length === 0 || lock === undefined) return outcome;
  const result = await writeInstall(
    dir,
    { files, manifest: next, manifestText: nextManifestText, notices: [] },
    { now: options.now, lock },
  );
  outcome.written = true;
  if (result.backupDir !== undefined) outcome.backups.push(result.backupDir);
  return outcome;
}

/**
 * openclaw.json without the qwen-managed plugin: its id, load path and entry removed, every other key
 * kept (the same function render uses to keep a rolled-back profile rolled back). Reported like a
 * removed hook, by name.
 */
function removePlugin(text: string): { text: string; removed: RemovedHook[] } {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    throw new RollbackError(
      `${profileRel(OPENCLAW_PROFILE, OPENCLAW_PROFILE_FILES.config)} is not valid JSON`,
    );
  }
  if (!isPlainObject(config)) throw new RollbackError('openclaw.json is not a JSON object');
  const plugins = config['plugins'];
  const paths =
    isPlainObject(plugins) && isPlainObject(plugins['load']) ? plugins['load']['paths'] : undefined;
  // The rendered load path names the final install location; match it by its tail, as staged trees have another dir.
  const tail = `/runtime/${OPENCLAW_PLUGIN_PACKAGE.dir}`;
  const pluginDir = Array.isArray(paths)
    ? paths.find((p) => typeof p === 'string' && p.endsWith(tail))
    : undefined;
  const next = withoutPlugin(config, typeof pluginDir === 'string' ? pluginDir : '');
  const after = renderJson(next);
  const present = after !== text;
  return { text: after, removed: present ? [{ event: 'plugin', name: OPENCLAW_PLUGIN_ID }] : [] };
}
