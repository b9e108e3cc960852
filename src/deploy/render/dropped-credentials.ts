// The credential files an earlier render routed and this one no longer does (a provider removed or
// renamed, a credential moved, a broker turned off): render never deletes files outside the install
// tree, so each one still on disk stays readable by whoever could read it before — the developers'
// group, without a broker. Read from the rendered files themselves (every launch plan's and
// broker.json's `credentials`), so the previous deployment.json is not needed. Pure.
import { BROKER_CONFIG_REL } from '../../contracts/broker.js';
import { PROFILE_FILES } from '../../contracts/layout.js';
import { isPlainObject } from '../../text/json.js';

/** Credential file → the variable names it was routed as, from launch plans and broker.json. */
export function credentialFilesOf(files: ReadonlyMap<string, Uint8Array>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [rel, bytes] of files) {
    const parts = rel.split('/');
    const plan = parts.length === 3 && parts[0] === 'profiles' && parts[2] === PROFILE_FILES.launchPlan;
    if (!plan && rel !== BROKER_CONFIG_REL) continue;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      continue;
    }
    const credentials = isPlainObject(value) ? value['credentials'] : undefined;
    if (!isPlainObject(credentials)) continue;
    for (const [name, source] of Object.entries(credentials)) {
      const file = isPlainObject(source) ? source['file'] : undefined;
      if (typeof file !== 'string') continue;
      const names = out.get(file) ?? [];
      if (!names.includes(name)) names.push(name);
      out.set(file, names);
    }
  }
  return out;
}

/**
 * The files any of `previous` (a tree's files; verify passes every backup folder) routes a credential
 * from and `next` does not, sorted, with their names.
 */
export function droppedCredentialFiles(
  previous: readonly ReadonlyMap<string, Uint8Array>[],
  next: ReadonlyMap<string, Uint8Array>,
): { file: string; names: string[] }[] {
  const kept = credentialFilesOf(next);
  const dropped = new Map<string, Set<string>>();
  for (const tree of previous) {
    for (const [file, names] of credentialFilesOf(tree)) {
      if (kept.has(file)) continue;
      const all = dropped.get(file) ?? new Set<string>();
      for (const name of names) all.add(name);
      dropped.set(file, all);
    }
  }
  return [...dropped]
    .map(([file, names]) => ({ file, names: [...names].sort() }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** What render and verify say of a dropped credential file still on disk. */
export function droppedCredentialNotice(dropped: { file: string; names: string[] }): string {
  return `credential file ${dropped.file} (${dropped.names.join(', ')}) is no longer used by deployment.json but is still on disk, readable as before: render never deletes files outside the install tree. Fix: delete it if nothing else uses it (and rotate the secret if it should no longer be readable by those who could read it)`;
}
