// The package's `launch-qwen` (npm install -g) finds the deployed install from the admin-owned
// deployment file, never from the caller's environment or working directory, and holds that file to
// StrictModes: whoever could write it would choose what runs.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INSTALL_DIR,
  DEPLOYMENT_POINTER,
  type LocatorFs,
  locateInstall,
} from '../../../src/cli/launch-locator.js';

interface Entry {
  uid?: number;
  mode?: number;
  directory?: boolean;
  text?: string;
}

/** A file system of absolute paths; every parent directory is root-owned 0755 unless listed. */
function fakeFs(entries: Record<string, Entry>): LocatorFs {
  const lookup = (p: string): Entry | undefined => {
    if (Object.hasOwn(entries, p)) return entries[p];
    const isParent = Object.keys(entries).some((k) => k.startsWith(p === '/' ? '/' : `${p}/`));
    return isParent ? { directory: true } : undefined;
  };
  const missing = (p: string) => Object.assign(new Error(`ENOENT ${p}`), { code: 'ENOENT' });
  return {
    existsSync: (p) => lookup(p) !== undefined,
    readFileSync: (p) => {
      const entry = lookup(p);
      if (entry?.text === undefined) throw missing(p);
      return entry.text;
    },
    lstatSync: (p) => {
      const entry = lookup(p);
      if (entry === undefined) throw missing(p);
      const directory = entry.directory === true;
      return {
        uid: entry.uid ?? 0,
        mode: entry.mode ?? (directory ? 0o755 : 0o644),
        isDirectory: () => directory,
        isSymbolicLink: () => false,
      };
    },
    readlinkSync: (p) => {
      throw missing(p);
    },
  };
}

const pointer = (installDir: unknown, entry: Entry = {}) => ({
  [DEPLOYMENT_POINTER]: { text: JSON.stringify({ installDir }), ...entry },
});

describe('locateInstall', () => {
  it('runs the install the deployment file names: its bin/launch-qwen', () => {
    const fs = fakeFs({ ...pointer('/srv/qm'), '/srv/qm/bin/launch-qwen': { mode: 0o755 } });
    expect(locateInstall(fs, 0)).toEqual({
      kind: 'found',
      shim: '/srv/qm/bin/launch-qwen',
      from: `installDir of ${DEPLOYMENT_POINTER}`,
    });
  });

  it('without a deployment file: the default installDir, when it holds an install', () => {
    const fs = fakeFs({ [`${DEFAULT_INSTALL_DIR}/bin/launch-qwen`]: { mode: 0o755 } });
    expect(locateInstall(fs, 0)).toMatchObject({
      kind: 'found',
      shim: `${DEFAULT_INSTALL_DIR}/bin/launch-qwen`,
    });
  });

  it('no install anywhere: says where it looked and what the administrator does', () => {
    expect(locateInstall(fakeFs({}), 0)).toEqual({
      kind: 'none',
      message: `no deployed install: "${DEFAULT_INSTALL_DIR}/bin/launch-qwen" (the default installDir ${DEFAULT_INSTALL_DIR}) does not exist. An administrator renders one (qwen-managed render), keeps its deployment.json at ${DEPLOYMENT_POINTER} or links <installDir>/bin/launch-qwen onto PATH`,
    });
  });

  it.each<[string, Entry, RegExp]>([
    ['writable by others', { mode: 0o666 }, /is a file writable by group or others \(mode 0666\)/],
    ['owned by a user', { uid: 1234 }, /is owned by uid 1234, not root/],
  ])(
    'refuses a deployment file %s (negative control: the same file root-owned 0644 is followed)',
    (_, entry, why) => {
      const shim = { '/srv/qm/bin/launch-qwen': { mode: 0o755 } };
      const refused = locateInstall(fakeFs({ ...pointer('/srv/qm', entry), ...shim }), 0);
      expect(refused.kind).toBe('refused');
      expect((refused as { problems: string[] }).problems.join('\n')).toMatch(why);
      expect(locateInstall(fakeFs({ ...pointer('/srv/qm'), ...shim }), 0).kind).toBe('found');
    },
  );

  it('refuses a deployment file that names no absolute installDir', () => {
    expect(locateInstall(fakeFs(pointer('relative/qm')), 0)).toEqual({
      kind: 'refused',
      problems: [`"${DEPLOYMENT_POINTER}" names no absolute installDir: ask your administrator`],
    });
  });
});
