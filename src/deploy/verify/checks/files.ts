// Integrity of the tree: manifest.json in the pinned shape, every listed file present with its
// sha256 and mode, nothing unlisted (backups/ excepted), and the layout each profile needs.

import * as path from 'node:path';
import { sha256Hex } from '../../../base/hash.js';
import type { Platform } from '../../../base/platform.js';
import { MANIFEST_FILE } from '../../../contracts/install-manifest.js';
import {
  BIN_FILES,
  PROFILE_FILES,
  profileRel,
  renderedProfileFiles,
  runtimeFileNames,
  runtimeRel,
  usesMcp,
} from '../../../contracts/layout.js';
import { TEMP_MARKER } from '../../atomic-file.js';
import { LOCK_FILE } from '../../render/lock.js';
import { fileMode } from '../../render/manifest.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';

export interface FileCheckOptions {
  /** Permission bits mean nothing on a Windows host. */
  checkModes: boolean;
}

/** What an unlisted file is, and its fix: render owns the tree and retires what it did not write. */
function unlistedFix(rel: string): string {
  if (rel === LOCK_FILE)
    return 'it is the lock of a render or rollback, running or killed; fix: wait for it to finish, or run render again (it takes over a lock whose process is gone)';
  if (path.posix.basename(rel).includes(TEMP_MARKER))
    return 'it is a temp file of a render or rollback killed mid-write; fix: run render again (it sweeps them)';
  return 'fix: move it outside installDir (render owns the tree: the next render moves it to backups/), or re-render if render wrote it';
}

export function checkFiles(view: TreeView, checks: Checks, options: FileCheckOptions): void {
  const { tree } = view;
  const manifest = tree.manifest;
  if (manifest === undefined) {
    checks.add(
      'manifest',
      { file: MANIFEST_FILE },
      false,
      tree.files.has(MANIFEST_FILE)
        ? 'is not valid JSON or does not match the pinned manifest shape (toolkitVersion, deploymentSha256, adminUid, files, profiles), so the launcher refuses every profile; fix: render the deployment again'
        : 'is missing: this is not a rendered install tree',
    );
    return;
  }
  checks.add('manifest', { file: MANIFEST_FILE }, true, 'matches the pinned shape');
  const listed = Object.keys(manifest.files);
  for (const rel of listed) {
    const entry = manifest.files[rel]!;
    const file = tree.files.get(rel);
    if (file === undefined) {
      checks.add('files.present', { file: rel }, false, 'is listed in manifest.json but missing');
      continue;
    }
    const sha = sha256Hex(file.bytes);
    checks.expect(
      'files.sha256',
      { file: rel },
      sha === entry.sha256
        ? []
        : [`sha256 ${sha} differs from manifest.json (${entry.sha256}): the file changed`],
      'sha256 matches',
    );
    if (options.checkModes) {
      const mode = fileMode(file.mode);
      checks.expect(
        'files.mode',
        { file: rel },
        mode === entry.mode ? [] : [`mode ${mode} differs from manifest.json (${entry.mode})`],
        `mode ${mode} matches`,
      );
    }
  }
  const unlisted = [...tree.files.keys()].filter(
    (rel) => rel !== MANIFEST_FILE && !Object.hasOwn(manifest.files, rel),
  );
  checks.expect(
    'files.unlisted',
    {},
    unlisted.map(
      (rel) =>
        `${rel} is not listed in manifest.json (every file except backups/ must be); ${unlistedFix(rel)}`,
    ),
    'no unlisted files',
  );
  checks.expect(
    'files.irregular',
    {},
    tree.irregular.map(
      (rel) => `${rel} is not a regular file or directory (symlinks are not allowed in an install)`,
    ),
    'no symlinks or special files',
  );
  checkLayout(view, checks);
}

function platformOf(view: TreeView): Platform | undefined {
  return view.profiles.find((p) => p.plan !== undefined)?.plan?.platform;
}

function checkLayout(view: TreeView, checks: Checks): void {
  const { tree } = view;
  const problems: string[] = [];
  const platform = platformOf(view);
  if (platform !== undefined) {
    for (const name of BIN_FILES[platform])
      if (!tree.files.has(`bin/${name}`)) problems.push(`bin/${name} is missing`);
  }
  for (const name of runtimeFileNames()) {
    if (!tree.files.has(runtimeRel(name))) problems.push(`${runtimeRel(name)} is missing`);
  }
  if (view.profiles.length === 0 && view.openclaw === undefined)
    problems.push('manifest.json lists no profile');
  for (const dir of view.strayProfiles)
    problems.push(`profiles/${dir}/ is not a profile listed in manifest.json`);
  checks.expect('layout', {}, problems, 'bin/, runtime/ and the profile directories are complete');

  for (const profile of view.profiles) {
    const { kind } = profile;
    const expected = new Set(renderedProfileFiles(kind));
    if (profile.state === 'rolled-back') expected.add(PROFILE_FILES.rollbackRecord);
    const found = [...tree.files.keys()]
      .filter((rel) => rel.startsWith(`profiles/${kind}/`))
      .map((rel) => rel.slice(`profiles/${kind}/`.length));
    const missing = [...expected].filter((f) => !found.includes(f));
    const extra = found.filter((f) => !expected.has(f));
    const profileProblems = [
      ...missing.map((f) => `${profileRel(kind, f)} is missing`),
      ...extra.map((f) =>
        f === PROFILE_FILES.mcpConfig && !usesMcp(kind)
          ? `${profileRel(kind, f)} must not exist: the auto-recall profile has no external-context MCP server (exclusivity)`
          : f === PROFILE_FILES.rollbackRecord
            ? `${profileRel(kind, f)} exists but manifest.json marks the profile active`
            : `${profileRel(kind, f)} is not a file of a ${kind} profile`,
      ),
    ];
    checks.expect(
      'layout.profile',
      { profile: kind },
      profileProblems,
      `the ${kind} profile has exactly its files`,
    );
  }
}
