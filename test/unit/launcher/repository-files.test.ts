// RepositoryPaths, the repository guard's judge for one launch: the paths it judges share their
// parents (`.env` and the context files of every directory up to `/`), so each entry is looked at
// once per launch — with the verdicts judgePath gives on its own.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryPaths } from '../../../launcher/repository-files.js';
import { judgePath, type LinkFs } from '../../../src/policy/repository-path.js';

let base: string;
let repo: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-repository-files-')));
  repo = path.join(base, 'repo');
  fs.mkdirSync(path.join(repo, '.qwen'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'QWEN.md'), '# notes\n');
  fs.writeFileSync(path.join(repo, '.qwen', '.env'), 'A=1\n');
  fs.symlinkSync('/etc/hostname', path.join(repo, 'AGENTS.md'));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** node:fs, counting each path it is asked to lstat. */
function countingFs() {
  const looked = new Map<string, number>();
  const counted = {
    ...fs,
    lstatSync: ((file: string, options?: fs.StatSyncOptions) => {
      looked.set(file, (looked.get(file) ?? 0) + 1);
      return fs.lstatSync(file, options);
    }) as typeof fs.lstatSync,
  };
  return { fs: counted, looked };
}

/** What one launch judges: files in the repository, and the parents' own `.env` and context files. */
const judged = () => [
  path.join(repo, 'QWEN.md'),
  path.join(repo, 'AGENTS.md'),
  path.join(repo, '.env'),
  path.join(repo, '.qwen', '.env'),
  path.join(repo, '.qwen', 'settings.json'),
  path.join(base, '.env'),
  path.join(base, 'QWEN.md'),
  path.join(path.dirname(base), '.env'),
];

describe('RepositoryPaths: each entry looked at once per launch', () => {
  it('gives judgePath’s own verdicts, looking at no path twice', () => {
    const { fs: counted, looked } = countingFs();
    const paths = new RepositoryPaths(repo, counted, path.posix);
    const verdicts = judged().map((file) => paths.judge(file));
    const alone = judged().map((file) =>
      judgePath(file, {
        root: paths.inRepository(file) ? repo : '/',
        fs: fs as LinkFs,
        path: path.posix,
      }),
    );
    expect(verdicts).toEqual(alone);
    expect(verdicts.map((v) => v.kind)).toEqual([
      'inside',
      'outside',
      'absent',
      'inside',
      'absent',
      'absent',
      'absent',
      'absent',
    ]);
    expect([...looked].filter(([, times]) => times > 1)).toEqual([]);
    // The parents every path outside the repository passes: looked at, once.
    expect(looked.get(base)).toBe(1);
  });

  it('normalizes each path once per launch, however often it is checked', () => {
    const normalized = new Map<string, number>();
    const syntax = {
      ...path.posix,
      normalize: (file: string) => {
        normalized.set(file, (normalized.get(file) ?? 0) + 1);
        return path.posix.normalize(file);
      },
    };
    const paths = new RepositoryPaths(repo, fs, syntax);
    for (const file of [...judged(), ...judged()]) paths.check(file);
    expect([...normalized].filter(([, times]) => times > 1)).toEqual([]);
    // The paths checked, and where the link AGENTS.md leads.
    expect([...normalized.keys()].sort()).toEqual([...judged(), '/etc/hostname'].sort());
  });

  it('negative control: judgePath alone looks at the shared parents again for every path', () => {
    const { fs: counted, looked } = countingFs();
    for (const file of judged()) judgePath(file, { root: '/', fs: counted as LinkFs, path: path.posix });
    expect(looked.get(base)).toBeGreaterThan(1);
  });
});
