// manifest.json in the pinned shape. `changedAt` changes only when a profile's state changes, so a
// re-render of the same input over the same tree is byte-identical.

import { sha256Hex } from '../../base/hash.js';
import type { InstallManifest } from '../../contracts/install-manifest.js';
import { installManifestSchema } from '../../contracts/install-manifest-schema.js';
import { ALL_PROFILE_KINDS, type AnyProfileKind } from '../../contracts/launch-plan.js';
import { renderJson } from '../json.js';
import type { RenderedFile } from './types.js';

export type ProfileState = 'active' | 'rolled-back';

export function fileMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

export function buildManifest(input: {
  toolkitVersion: string;
  deploymentSha256: string;
  deploymentFile?: string;
  adminUid: number;
  files: ReadonlyMap<string, RenderedFile>;
  states: ReadonlyMap<AnyProfileKind, ProfileState>;
  previous: InstallManifest | undefined;
  now: string;
}): InstallManifest {
  const files: InstallManifest['files'] = {};
  for (const rel of [...input.files.keys()].sort()) {
    const file = input.files.get(rel)!;
    files[rel] = { sha256: sha256Hex(file.bytes), mode: fileMode(file.mode) };
  }
  const profiles: InstallManifest['profiles'] = {};
  for (const kind of ALL_PROFILE_KINDS) {
    const state = input.states.get(kind);
    if (state === undefined) continue;
    const before = input.previous?.profiles[kind];
    profiles[kind] = { state, changedAt: before?.state === state ? before.changedAt : input.now };
  }
  return installManifestSchema.parse({
    toolkitVersion: input.toolkitVersion,
    deploymentSha256: input.deploymentSha256,
    adminUid: input.adminUid,
    ...(input.deploymentFile === undefined ? {} : { deploymentFile: input.deploymentFile }),
    files,
    profiles,
  });
}

export function manifestText(manifest: InstallManifest): string {
  return renderJson(manifest);
}

export function parseManifestText(text: string): InstallManifest | undefined {
  try {
    const parsed = installManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
