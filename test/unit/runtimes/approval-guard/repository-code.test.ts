// The approval guard naming the repository code a shell command runs (docs/admin.md, "Repository code").
import { describe, expect, it } from 'vitest';
import {
  guardedRepositoryCode,
  runWithin,
  UNFINISHED_CODE_RULE,
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
    // The files directly in a directory.
    list: (p) =>
      [...Object.keys(texts), ...executables].flatMap((f) => {
        const name = p === ROOT ? f : f.startsWith(`${at(p)}/`) ? f.slice(at(p).length + 1) : '/';
        return name.includes('/') ? [] : [name];
      }),
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
    ['make -C $(pwd)/sub', ['make in a directory the guard cannot read: -C $(…)']],
    ['cd /tmp && make', []],
    ['cd "$DIR" && ls', []],
    // Every `cd` may double the directories looked in: past 32 the guard asks, naming the word.
    [
      `${Array.from({ length: 14 }, (_, i) => `cd d${i}`).join('; ')}; make`,
      ['make in a directory the guard cannot read: d5 (one of over 32 directories)'],
    ],
  ])('%s → %j', (command, named) => {
    expect(repositoryCode(command, ROOT, BUILD)).toEqual(named);
  });
});

// Build tools named by their files (patterns too), forms that run a repository file, and where bash computes a directory.
const MORE = repository(
  {
    'App.sln': 'Microsoft Visual Studio Solution File\n',
    'Directory.Build.props': '<Project/>\n',
    'src/App/App.csproj': '<Project Sdk="Microsoft.NET.Sdk"/>\n',
    'src/App/App.csproj.user': '<Project/>\n',
    'build.sbt': 'lazy val root = project\n',
    'project/Dependencies.scala': 'object Dependencies\n',
    'project/plugins.sbt': 'addSbtPlugin("x" % "y" % "1")\n',
    '.bazelrc': 'build --config=x\n',
    'MODULE.bazel': 'module(name = "x")\n',
    'BUILD.bazel': '\n',
    'pkg/BUILD.bazel': 'genrule(name = "x")\n',
    'mix.exs': 'defmodule X.MixProject do end\n',
    'config/config.exs': 'import Config\n',
    'Package.swift': '// swift-tools-version:5.9\n',
    'Package@swift-5.8.swift': '// swift-tools-version:5.8\n',
    'dune-project': '(lang dune 3.0)\n',
    dune: '(rule (action (run ./gen.sh)))\n',
    'test_api.py': 'def test_x(): pass\n',
    'tests/db_test.py': 'def test_y(): pass\n',
    'tests/helpers.py': 'x = 1\n',
    'hook.js': 'process.exit()\n',
    'preload.cjs': '\n',
    'x.py': 'print()\n',
    'x.rb': 'puts 1\n',
    'x.js': '\n',
    'sub/package.json': PACKAGE,
  },
  ['x.sh', 'ci.sh', 'tools/bazel', 'sub/node_modules/.bin/eslint', 'node_modules/.bin/eslint'],
);

describe('repositoryCode: dotnet, sbt, bazel, mix, swift, dune, test files, find -exec, interpreter options', () => {
  const at = (...names: string[]) => names.map((n) => `/repo/${n}`);
  it.each<[string, string[]]>([
    ['dotnet build', at('App.sln', 'Directory.Build.props')],
    // MSBuild imports Directory.Build.props from the project's directory and every one above it.
    [
      'cd src/App && dotnet test',
      at('App.sln', 'Directory.Build.props', 'src/App/App.csproj', 'src/App/App.csproj.user'),
    ],
    ['dotnet --info', []],
    ['dotnet nuget locals all --list', []],
    ['sbt test', at('build.sbt', 'project/Dependencies.scala', 'project/plugins.sbt')],
    ['bazel build //...', at('tools/bazel', '.bazelrc', 'MODULE.bazel', 'BUILD.bazel')],
    [
      'cd pkg && bazelisk test :all',
      at('tools/bazel', '.bazelrc', 'MODULE.bazel', 'BUILD.bazel', 'pkg/BUILD.bazel'),
    ],
    ['bazel build --config=ci', at('tools/bazel', '.bazelrc', 'MODULE.bazel', 'BUILD.bazel')],
    ['mix test', at('mix.exs', 'config/config.exs')],
    ['swift build -c release', at('Package.swift', 'Package@swift-5.8.swift')],
    ['swift --version', []],
    ['dune build @all', at('dune-project', 'dune')],
    // pytest with no configuration file still imports the test files it collects.
    ['pytest -q', at('test_api.py', 'tests/db_test.py')],
    ['python3 -m pytest', at('test_api.py', 'tests/db_test.py')],
    // unittest discovers test*.py with no configuration at all.
    ['python -m unittest', at('test_api.py')],
    ['python -m unittest discover -s tests', []],
    ['python -m unittest discover --start-directory=.', at('test_api.py')],
    // find and xargs run a repository program; -execdir runs it where the guard cannot look.
    ['find . -name "*.txt" -exec ./x.sh {} \\;', at('x.sh')],
    ['find . -ok bash ci.sh {} +', at('ci.sh')],
    ['find . -type f -exec grep -l x {} + -exec wc -l {} \\;', []],
    ['find . -execdir ./x.sh {} \\;', ['x.sh in a directory the guard cannot read: -execdir']],
    ['find . -name "*.sh"', []],
    ['ls | xargs ./x.sh', at('x.sh')],
    // An interpreter given its script by find (`{}`) or by xargs (no script operand) runs the files they list.
    ['find . -name "*.sh" -exec bash {} \\;', ['bash runs each file find lists']],
    ['git ls-files "*.py" | xargs -n 1 python3', ['python3 runs the files xargs reads from its input']],
    ['ls | xargs sh ci.sh', at('ci.sh')],
    ['ls | xargs bash -c "wc -l"', []],
    ['ls | xargs cat', []],
    ['find . -exec cat {} +', []],
    ['xargs -a list -n 1 ./x.sh', at('x.sh')],
    ['npx --prefix sub eslint .', at('sub/node_modules/.bin/eslint')],
    ['npx --prefix=sub eslint', at('sub/node_modules/.bin/eslint')],
    ['npm exec -- eslint', at('node_modules/.bin/eslint')],
    // A directory bash computes: asked, naming the word (as `cd "$DIR"` is).
    ['make -C $(pwd)/sub', ['make in a directory the guard cannot read: -C $(…)']],
    ['env -C $(pwd)/sub npm test', ['npm in a directory the guard cannot read: -C $(…)']],
    // The substitution's own git is read as after the cut too: one name too many.
    [
      'cd $(git rev-parse --show-toplevel)/sub && npm test',
      ['git', 'npm'].map((t) => `${t} in a directory the guard cannot read: cd $(…)`),
    ],
    ['cd `pwd`/sub; make', ['make in a directory the guard cannot read: cd `…`']],
    ['echo $(date) && npx eslint', at('node_modules/.bin/eslint')],
    ['ls -la $(pwd)', []],
    // Only the option of a tool or wrapper the command names: `-p` is gradle's, not mkdir's.
    ['mkdir -p $(dirname out/x) && make && npx eslint', at('node_modules/.bin/eslint')],
    ['timeout 60 ./gradlew -p $(pwd)/sub build', ['gradlew in a directory the guard cannot read: -p $(…)']],
    // An interpreter's option values are no script; what `-r`/`--require` loads is named.
    ['python -W ignore x.py', at('x.py')],
    ['python -X dev -Wdefault x.py', at('x.py')],
    ['node --require ./hook.js x.js', at('hook.js', 'x.js')],
    ['node -r ./hook x.js', at('hook.js', 'x.js')],
    ['node --import=./preload.cjs --input-type module', at('preload.cjs')],
    ['node -r ts-node/register x.js', at('x.js')],
    ['ruby -I lib x.rb', at('x.rb')],
    ['bash -x ci.sh', at('ci.sh')],
    ['sh -e ci.sh', at('ci.sh')],
    ['bash -o pipefail ci.sh', at('ci.sh')],
    ['node -e "require(process.argv[1])" x.js', []],
    ['python -c "import os" x.py', []],
  ])('%s → %j', (command, named) => {
    expect(repositoryCode(command, ROOT, MORE)).toEqual(named);
  });

  it('counts the test files past the six it names', () => {
    const many = repository(
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`test_${String(i).padStart(2, '0')}.py`, ''])),
      [],
    );
    expect(repositoryCodeRisk('pytest', undefined, ROOT, many)).toBe(
      `${REPOSITORY_CODE_REASON}"test_00.py; test_01.py; test_02.py; test_03.py; test_04.py; test_05.py; and 34 more"`,
    );
  });
});

// npm runs the install scripts of the dependencies its lockfile pins (hasInstallScript, lockfile v2/v3).
const LOCK = JSON.stringify({
  lockfileVersion: 3,
  packages: {
    '': { hasInstallScript: true },
    'node_modules/esbuild': { version: '0.25.0', hasInstallScript: true },
    'node_modules/a/node_modules/fsevents': { hasInstallScript: true, optional: true },
    'node_modules/left-pad': { version: '1.3.0' },
  },
});
const LOCKED = repository({ 'package.json': PACKAGE, 'package-lock.json': LOCK }, []);

describe("repositoryCode: dependencies' install scripts npm runs", () => {
  const DEPENDENCIES = 'package-lock.json: 2 dependencies with install scripts (esbuild, fsevents)';
  it.each<[string, RepositoryFiles, string[]]>([
    ['npm ci', LOCKED, ['package.json scripts.postinstall: node setup.js', DEPENDENCIES]],
    ['npm i left-pad', LOCKED, ['package.json scripts.postinstall: node setup.js', DEPENDENCIES]],
    ['npm rebuild', LOCKED, ['package.json scripts.postinstall: node setup.js', DEPENDENCIES]],
    ['npm update', LOCKED, [DEPENDENCIES]],
    ['npm ci --ignore-scripts', LOCKED, ['package.json scripts.postinstall: node setup.js']],
    ['npm ci', repository({ 'package-lock.json': LOCK }, []), [DEPENDENCIES]],
    ['npm run lint', LOCKED, ['package.json scripts.lint: biome check .']],
    ['npm test', LOCKED, ['package.json scripts.pretest: tsc', 'package.json scripts.test: vitest run']],
    // yarn and pnpm lockfiles do not say which packages have install scripts.
    ['pnpm install', LOCKED, ['package.json scripts.postinstall: node setup.js']],
    ['yarn', LOCKED, ['package.json scripts.postinstall: node setup.js']],
    // Printing the version or the help installs nothing (it named the install scripts).
    ['yarn --version', LOCKED, []],
    ['pnpm -h', LOCKED, []],
    ['npm ci', repository({ 'package-lock.json': '{"packages":{"node_modules/x":{}}}' }, []), []],
    ['npm ci', repository({ 'package-lock.json': '{not json' }, []), []],
    [
      'npm ci',
      { ...repository({}, []), isFile: (p) => p.endsWith('/package-lock.json') },
      ["package-lock.json: over 1048576 bytes, its dependencies' install scripts not counted"],
    ],
  ])('%s → %j', (command, files, named) => {
    expect(repositoryCode(command, ROOT, files)).toEqual(named);
  });

  it("cuts the dependencies' names as a script's text", () => {
    const packages = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`node_modules/pkg-${i}`, { hasInstallScript: true }]),
    );
    const [named] = repositoryCode(
      'npm ci',
      ROOT,
      repository({ 'package-lock.json': JSON.stringify({ packages }) }, []),
    );
    const list = Array.from({ length: 40 }, (_, i) => `pkg-${i}`).join(', ');
    expect(named).toBe(`package-lock.json: 40 dependencies with install scripts (${list.slice(0, 160)}…)`);
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
    // With no script of that name yarn and pnpm run the local program.
    ['yarn eslint .', HUSKY, ['/repo/node_modules/.bin/eslint']],
    ['pnpm eslint', HUSKY, ['/repo/node_modules/.bin/eslint']],
    ['yarn cowsay', HUSKY, []],
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
    ['ls | xargs ./x.sh', true],
    ['dotnet test', true],
    ['cat a; npm test', true],
    ['"cat" a', true],
    ['$TOOL a', true],
    ['env X=1 make', true],
    ['./build.sh', true],
  ])('%s → %s', (line, loads) => {
    expect(mayRunRepositoryCode(line)).toBe(loads);
  });
});

// The rule as the built guard runs it: only for a line the gate passes, under a V8 timeout.
describe('guardedRepositoryCode: the rule as the built guard runs it', () => {
  it('runs the rule only for a line the gate passes', () => {
    let runs = 0;
    const rule = guardedRepositoryCode(() => {
      runs++;
      return 'named';
    });
    expect([rule('ls', undefined, ROOT), runs]).toEqual([undefined, 0]);
    expect([rule('npm test', undefined, ROOT), runs]).toEqual(['named', 1]);
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
    const rule = guardedRepositoryCode(body, (run) => runWithin(run, 200));
    expect(rule('npm test', undefined, ROOT)).toBe(REPOSITORY_CODE_REASON + UNFINISHED_CODE_RULE);
  });

  it('runWithin returns what the run returns and leaves no global behind', () => {
    expect(runWithin(() => 'named', 200)).toBe('named');
    expect(Object.keys(globalThis).filter((k) => k.includes('qwenManaged'))).toEqual([]);
  });
});
