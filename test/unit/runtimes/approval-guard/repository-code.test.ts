// The approval guard naming the repository code a shell command runs (docs/admin.md, "Repository code").
import { describe, expect, it } from 'vitest';
import {
  REPOSITORY_CODE_REASON,
  type RepositoryFiles,
  repositoryCode,
  repositoryCodeRisk,
} from '../../../../src/runtimes/approval-guard/repository-code.js';

const ROOT = '/repo';
const PACKAGE = JSON.stringify({
  scripts: { pretest: 'tsc', test: 'vitest run', lint: 'biome check .', postinstall: 'node setup.js' },
});

/** A repository held in memory: path → text, and which paths are executable. */
function repository(texts: Record<string, string>, executables: readonly string[]): RepositoryFiles {
  const at = (p: string) => p.slice(ROOT.length + 1);
  return {
    readText: (p) => texts[at(p)],
    executable: (p) => executables.includes(at(p)),
    isFile: (p) => at(p) in texts || executables.includes(at(p)),
  };
}

const HUSKY = repository(
  { '.git/config': '[core]\n\thooksPath = .husky/_\n', 'package.json': PACKAGE, Makefile: 'all:\n' },
  ['.husky/_/pre-commit', '.git/hooks/post-checkout', 'node_modules/.bin/eslint', 'scripts/ci.sh'],
);
const PLAIN = repository({ '.git/config': '[core]\n\tbare = false\n' }, ['.git/hooks/pre-commit.sample']);

describe('repositoryCode: what a shell command runs of the repository', () => {
  it.each<[string, RepositoryFiles, string[]]>([
    ['git commit -m wip', HUSKY, ['/repo/.husky/_/pre-commit']],
    ['git add . && git commit -qm "x y"', HUSKY, ['/repo/.husky/_/pre-commit']],
    ['git checkout -b feature', HUSKY, ['/repo/.git/hooks/post-checkout']],
    ['git switch main', HUSKY, ['/repo/.git/hooks/post-checkout']],
    ['CI=1 npm test', HUSKY, ['package.json scripts.pretest: tsc', 'package.json scripts.test: vitest run']],
    ['npm t', HUSKY, ['package.json scripts.pretest: tsc', 'package.json scripts.test: vitest run']],
    ['npm run lint', HUSKY, ['package.json scripts.lint: biome check .']],
    ['npm ci', HUSKY, ['package.json scripts.postinstall: node setup.js']],
    [
      'npm cit',
      HUSKY,
      [
        'package.json scripts.postinstall: node setup.js',
        'package.json scripts.pretest: tsc',
        'package.json scripts.test: vitest run',
      ],
    ],
    ['yarn', HUSKY, ['package.json scripts.postinstall: node setup.js']],
    ['pnpm lint --fix', HUSKY, ['package.json scripts.lint: biome check .']],
    ['npx eslint .', HUSKY, ['/repo/node_modules/.bin/eslint']],
    ['make -j2 all', HUSKY, ['/repo/Makefile']],
    ['./scripts/ci.sh --fast', HUSKY, ['/repo/scripts/ci.sh']],
    ['cd /repo && scripts/ci.sh', HUSKY, ['/repo/scripts/ci.sh']],
    // Nothing of the repository's runs: no ask.
    ['git commit -m wip', PLAIN, []],
    ['git status && git log -p', HUSKY, []],
    ['git branch -a', HUSKY, []],
    ['npm run missing', HUSKY, []],
    ['npm --version', HUSKY, []],
    ['npx cowsay hi', HUSKY, []],
    ['make', PLAIN, []],
    ['./scripts/absent.sh', HUSKY, []],
    ['/usr/bin/env ls', HUSKY, []],
    ['echo git commit', HUSKY, []],
  ])('%s → %j', (command, files, named) => {
    expect(repositoryCode(command, ROOT, files)).toEqual(named);
  });

  it('names what runs relative to the root, as a JSON string with controls escaped, script text cut, at most six names', () => {
    const long = repository(
      { 'package.json': JSON.stringify({ scripts: { test: `echo \u001b[2J${'x'.repeat(300)}` } }) },
      ['.git/hooks/pre-commit'],
    );
    // 160 code points of the script: `echo `, the escape (one code point), `[2J`, then 151 x's.
    expect(repositoryCodeRisk('git commit -m x; npm test', undefined, ROOT, long)).toBe(
      `${REPOSITORY_CODE_REASON}".git/hooks/pre-commit; package.json scripts.test: echo \\u001b[2J${'x'.repeat(151)}…"`,
    );
    const many = repository(
      {},
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => `bin/${n}`),
    );
    expect(
      repositoryCodeRisk('bin/a; bin/b; bin/c; bin/d; bin/e; bin/f; bin/g; bin/h', undefined, ROOT, many),
    ).toBe(`${REPOSITORY_CODE_REASON}"bin/a; bin/b; bin/c; bin/d; bin/e; bin/f; and 2 more"`);
    expect(repositoryCodeRisk('git commit -m x', undefined, ROOT, undefined)).toBeUndefined();
    // The shell tool's `directory`: npm reads the package.json there.
    const nested = repository({ 'packages/a/package.json': PACKAGE }, []);
    expect(repositoryCodeRisk('npm run lint', 'packages/a', ROOT, nested)).toBe(
      `${REPOSITORY_CODE_REASON}"package.json scripts.lint: biome check ."`,
    );
    expect(repositoryCodeRisk('npm run lint', undefined, ROOT, nested)).toBeUndefined();
  });
});
