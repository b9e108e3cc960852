// The approval guard naming the repository code a shell command runs (docs/admin.md, "Repository code").
import { describe, expect, it } from 'vitest';
import {
  lazyRepositoryCode,
  runWithin,
  UNFINISHED_CODE_RULE,
  UNLOADED_CODE_RULE,
} from '../../../../src/runtimes/approval-guard/approval-guard.js';
import {
  REPOSITORY_CODE_REASON,
  type RepositoryFiles,
  repositoryCode,
  repositoryCodeRisk,
} from '../../../../src/runtimes/approval-guard/repository-code.js';
import { mayRunRepositoryCode } from '../../../../src/runtimes/approval-guard/repository-code-gate.js';

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

const BUILD = repository(
  {
    'Cargo.toml': '[package]\n',
    'build.rs': 'fn main() {}\n',
    'conftest.py': 'import os\n',
    'pyproject.toml': '[project]\n',
    'build.gradle': 'task x\n',
    'gradle/wrapper/gradle-wrapper.properties': 'distributionUrl=x\n',
    'go.mod': 'module x\n',
    Gemfile: 'source "x"\n',
    Rakefile: 'task :x\n',
    justfile: 'x:\n',
    'Taskfile.yml': 'version: 3\n',
    'pom.xml': '<project/>\n',
    'tox.ini': '[tox]\n',
    'setup.py': 'import os\n',
    'ci.sh': 'echo\n',
    'tools/gen.py': 'print()\n',
    'mypkg/__main__.py': 'print()\n',
    '.yarnrc.yml': 'yarnPath: .yarn/releases/yarn.cjs\n',
    'package.json': JSON.stringify({ scripts: { lint: 'biome check .' } }),
    'sub/package.json': PACKAGE,
    'sub/Makefile': 'all:\n',
    'sub/build.rs': 'fn main() {}\n',
    'sub/Cargo.toml': '[package]\n',
    'sub/conftest.py': 'import os\n',
  },
  ['gradlew', 'mvnw'],
);

describe('repositoryCode: build and test tools of policies/repository-code.json, and the forms that hide a tool', () => {
  const at = (...names: string[]) => names.map((n) => `/repo/${n}`);
  const SUB_TEST = ['package.json scripts.pretest: tsc', 'package.json scripts.test: vitest run'];
  it.each<[string, string[]]>([
    ['cargo test', at('build.rs', 'Cargo.toml')],
    ['cargo +nightly build --release', at('build.rs', 'Cargo.toml')],
    ['cargo --version', []],
    ['pytest -q tests', at('conftest.py', 'pyproject.toml', 'tox.ini')],
    ['python3 -m pytest -x', at('conftest.py', 'pyproject.toml', 'tox.ini')],
    ['python -m mypkg', at('mypkg/__main__.py')],
    ['python -m http.server', []],
    ['tox -e py312', at('tox.ini', 'pyproject.toml', 'setup.py')],
    ['./gradlew build', at('gradle/wrapper/gradle-wrapper.properties', 'build.gradle', 'gradlew')],
    ['gradle test', at('build.gradle')],
    ['mvn -q test', at('pom.xml')],
    ['./mvnw verify', at('pom.xml', 'mvnw')],
    ['go test ./...', at('go.mod')],
    ['go generate ./...', at('go.mod')],
    ['go build ./...', []],
    ['go vet ./...', []],
    ['pip install -e .', at('setup.py', 'pyproject.toml')],
    ['pip list', []],
    ['bundle exec rspec', at('Gemfile')],
    ['rake test', at('Rakefile')],
    ['just build', at('justfile')],
    ['task lint', at('Taskfile.yml')],
    ['yarn --version', at('.yarnrc.yml')],
    // The forms that hide the tool, its directory or its name.
    ['cd sub && npm test', SUB_TEST],
    ['(cd sub; make)', at('sub/Makefile')],
    ['cd sub; cd ..; make', at('sub/Makefile')],
    ['npm --prefix sub test', SUB_TEST],
    ['npm --prefix=sub ci', ['package.json scripts.postinstall: node setup.js']],
    ['make -C sub', at('sub/Makefile')],
    ['make --directory=sub all', at('sub/Makefile')],
    // A tool's directory option moves it once (it was applied twice: sub/sub/build.rs was looked for).
    ['cargo -C sub build', at('sub/build.rs', 'sub/Cargo.toml')],
    ['python -m pytest --rootdir sub', at('sub/conftest.py')],
    ['env X=1 npm test --prefix sub', SUB_TEST],
    ['env -C sub make', at('sub/Makefile')],
    ["env -S 'make -C sub'", at('sub/Makefile')],
    ['timeout 600 nice -n 5 cargo test', at('build.rs', 'Cargo.toml')],
    ['command npm run lint', ['package.json scripts.lint: biome check .']],
    ['X=$PWD npm run lint', ['package.json scripts.lint: biome check .']],
    ['"X=1" npm run lint', []],
    ['"npm" run lint', ['package.json scripts.lint: biome check .']],
    ['\\make -C sub', at('sub/Makefile')],
    ['bash ci.sh', at('ci.sh')],
    ['python3 tools/gen.py --out x', at('tools/gen.py')],
    ['npm test -ws', ['package.json workspaces: the scripts of each workspace package']],
    [
      'pnpm -r lint',
      [
        'package.json scripts.lint: biome check .',
        'package.json workspaces: the scripts of each workspace package',
      ],
    ],
    // Where the guard cannot look it asks, naming the word; elsewhere than the repository is not its code.
    ['cd "$DIR" && npm test', ['npm in a directory the guard cannot read: "$DIR"']],
    ['make -C $(pwd)/sub', []],
    ['cd /tmp && make', []],
    ['cd "$DIR" && ls', []],
  ])('%s → %j', (command, named) => {
    expect(repositoryCode(command, ROOT, BUILD)).toEqual(named);
  });
});

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

// The gate in the main bundle: only a line it passes loads the rule's own bundle.
describe('mayRunRepositoryCode: whether the rule is loaded for a line', () => {
  it.each<[string, boolean]>([
    ['ls -la', false],
    ['cat a.txt | grep x | wc -l', false],
    ['cd sub && ls', false],
    ['git status', true],
    ['find . -exec ./x.sh {} ;', true],
    ['cat a; npm test', true],
    ['"cat" a', true],
    ['$TOOL a', true],
    ['env X=1 make', true],
    ['./build.sh', true],
  ])('%s → %s', (line, loads) => {
    expect(mayRunRepositoryCode(line)).toBe(loads);
  });
});

// The rule is a bundle of its own: a damaged install that cannot load it asks, not crash to `{}`.
describe('lazyRepositoryCode: the rule as the built guard loads it', () => {
  it('loads the rule only for a line the gate passes, and asks when it cannot be loaded', () => {
    let loads = 0;
    const rule = lazyRepositoryCode(() => {
      loads++;
      return () => 'named';
    });
    expect([rule('ls', undefined, ROOT), loads]).toEqual([undefined, 0]);
    expect([rule('npm test', undefined, ROOT), loads]).toEqual(['named', 1]);
    const broken = lazyRepositoryCode(() => {
      throw new Error("Cannot find module './approval-guard-code.js'");
    });
    expect(broken('npm test', undefined, ROOT)).toBe(REPOSITORY_CODE_REASON + UNLOADED_CODE_RULE);
    expect(broken('ls', undefined, ROOT)).toBeUndefined();
  });

  // A loop blocks every timer, and a hook that never answers is run past by Qwen's timeout: unasked.
  it.each<[string, () => string]>([
    [
      'loops forever',
      () => {
        for (;;);
      },
    ],
    [
      'throws',
      () => {
        throw new TypeError('x is undefined');
      },
    ],
  ])('a rule that %s asks, naming that', (_name, body) => {
    const rule = lazyRepositoryCode(
      () => body,
      (run) => runWithin(run, 200),
    );
    expect(rule('npm test', undefined, ROOT)).toBe(REPOSITORY_CODE_REASON + UNFINISHED_CODE_RULE);
  });

  it('runWithin returns what the run returns and leaves no global behind', () => {
    expect(runWithin(() => 'named', 200)).toBe('named');
    expect(Object.keys(globalThis).filter((k) => k.includes('qwenManaged'))).toEqual([]);
  });
});
