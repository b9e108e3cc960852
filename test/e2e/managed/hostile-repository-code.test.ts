// Repository code a confirmed shell command runs: git hooks, package.json scripts. Qwen 0.24.4's
// dialog names only the program ("Allow execution of: 'git'?") and offers "Always allow", after which
// the next `git commit` runs with no dialog at all — and the hook with it, holding Qwen's environment.
// On the real Qwen through `launch-qwen` as a non-root user (default mode, the write profile):
//
// - with "Always allow git commit" stored, the model's `git commit` still asks (the approval guard),
//   naming `.git/hooks/pre-commit`; declined, the hook never runs;
// - `npm test` shows Qwen's dialog and, once approved, the guard's naming `package.json scripts.test`
//   and its text; declined there, the script never runs;
// - with "Always allow cd *, npm test" stored (what Qwen's dialog for that line offers), the model's
//   `cd sub && npm test` asks, naming the test script of `sub/package.json`;
// - negative control, the guard taken away: with the same stored rules the model's `git commit` and
//   `cd sub && npm test` run with no dialog, and the hook and the sub-package's script get the model key;
// - with "Always allow npm ci" stored, the model's `npm ci` asks, naming the dependency
//   package-lock.json marks with an install script; declined, it never runs; without the guard it runs
//   with no dialog and the dependency's postinstall gets the model key.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  declinedCall,
  modelCalls,
  repoGit,
  scriptCall,
  shows,
  startHostileWorld,
  startWithoutGuard,
  withUserSettings,
} from './hostile-world.js';
import { managedSuite } from './suite.js';
import { type ManagedWorld, MODEL_KEY } from './world.js';

const TOKEN = 'ctx-e2e-token-repocode-5a21';
const MEM0_KEY = 'm0-e2e-repocode-key-90c3';

let world: ManagedWorld;

const suite = managedSuite(async (own) => {
  ({ world } = await startHostileWorld(own, {
    label: 'repocode',
    token: TOKEN,
    mem0Key: MEM0_KEY,
    document: { id: 'kb-repocode', content: 'KB-REPOCODE-1: nothing here.' },
  }));
});

const HOOK_RAN = () => join(world.repo, 'hook-ran.txt');
const SCRIPT_RAN = () => join(world.repo, 'script-ran.txt');
const SUB_RAN = () => join(world.repo, 'sub-ran.txt');

/** A repository with one commit, a pre-commit hook and a test script that record the model key. */
function plant(): void {
  for (const f of [HOOK_RAN(), SCRIPT_RAN(), SUB_RAN()]) rmSync(f, { force: true });
  if (!existsSync(join(world.repo, '.git'))) {
    repoGit(world.repo, 'init', '-q', '-b', 'main');
    repoGit(world.repo, 'config', 'user.name', 'dev');
    repoGit(world.repo, 'config', 'user.email', 'dev@example.invalid');
  }
  writeFileSync(join(world.repo, 'a.txt'), `${Date.now()}\n`);
  const hook = join(world.repo, '.git', 'hooks', 'pre-commit');
  writeFileSync(hook, `#!/bin/sh\necho "key=$OPENAI_API_KEY" > ${HOOK_RAN()}\n`);
  chmodSync(hook, 0o755);
  const script = `echo key=$OPENAI_API_KEY > ${SCRIPT_RAN()}`;
  writeFileSync(join(world.repo, 'package.json'), JSON.stringify({ name: 'app', scripts: { test: script } }));
  mkdirSync(join(world.repo, 'sub'), { recursive: true });
  const sub = `echo key=$OPENAI_API_KEY > ${SUB_RAN()}`;
  writeFileSync(
    join(world.repo, 'sub', 'package.json'),
    JSON.stringify({ name: 'sub', scripts: { test: sub } }),
  );
  repoGit(world.repo, 'add', 'a.txt', 'package.json');
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
}

const DEP_RAN = () => join(world.repo, 'dep-ran.txt');

/** A package whose lockfile pins a local dependency with a postinstall that records the model key. */
function plantDependency(): void {
  plant();
  rmSync(DEP_RAN(), { force: true });
  const dep = join(world.repo, 'vendor', 'package');
  mkdirSync(dep, { recursive: true });
  const postinstall = `echo key=$OPENAI_API_KEY > ${DEP_RAN()}`;
  writeFileSync(
    join(dep, 'package.json'),
    JSON.stringify({ name: 'dep-with-script', version: '1.0.0', scripts: { postinstall } }),
  );
  execFileSync('tar', ['czf', 'dep-with-script-1.0.0.tgz', 'package'], { cwd: join(world.repo, 'vendor') });
  const dependencies = { 'dep-with-script': 'file:vendor/dep-with-script-1.0.0.tgz' };
  writeFileSync(
    join(world.repo, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', dependencies }),
  );
  // A lockfile left from an earlier row keeps that tarball's integrity: npm ci would fail with EINTEGRITY.
  rmSync(join(world.repo, 'package-lock.json'), { force: true });
  const quiet = ['--offline', '--no-audit', '--no-fund', '--cache', join(world.repo, 'vendor', 'cache')];
  execFileSync('npm', ['install', '--package-lock-only', ...quiet], { cwd: world.repo, stdio: 'ignore' });
  rmSync(join(world.repo, 'vendor', 'cache'), { recursive: true, force: true });
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
}

const NPM_CI = { command: 'npm ci --offline --no-audit --no-fund' };
const ALWAYS_CI = { permissions: { allow: ['Bash(npm ci *)'] } };
const COMMIT = { command: 'git commit -qm wip' };
const ALWAYS_COMMIT = { permissions: { allow: ['Bash(git commit *)'] } };
const SUB_TEST = { command: 'cd sub && npm test' };
// What Qwen offers for that line: "Always allow run 'cd *' commands, run 'npm test' commands".
const ALWAYS_BOTH = {
  permissions: { allow: ['Bash(git commit *)', 'Bash(cd *)', 'Bash(npm test)', 'Bash(npm test *)'] },
};

describe('repository code a confirmed command runs', () => {
  it(
    'write: with "Always allow git commit" stored, the model\'s git commit asks, naming the pre-commit hook; declined, it never runs',
    suite.test(async () => {
      plant();
      const undo = withUserSettings(world, ALWAYS_COMMIT);
      try {
        const s = await suite.launch(world, 'write');
        await s.waitForReady();
        const { dialog } = await declinedCall(s, 'run_shell_command', COMMIT, /pre-commit/);
        expect(shows(dialog, 'This command runs code the repository defines')).toBe(true);
        expect(shows(dialog, '.git/hooks/pre-commit')).toBe(true);
        expect(existsSync(HOOK_RAN())).toBe(false);
      } finally {
        undo();
      }
    }),
  );

  it(
    "write: npm test shows Qwen's dialog, then the guard's naming the test script; declined there, it never runs",
    suite.test(async () => {
      plant();
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      scriptCall(world, 'run_shell_command', { command: 'npm test' });
      await s.submit('Please look around');
      await s.term.waitFor("Allow execution of: 'npm'", 30_000);
      await s.term.press('Enter');
      const dialog = await s.decline(/scripts\.test/);
      expect(shows(dialog, 'package.json scripts.test: echo key=$OPENAI_API_KEY')).toBe(true);
      expect(existsSync(SCRIPT_RAN())).toBe(false);
    }),
  );

  it(
    'write: with "Always allow cd *, npm test" stored, the model\'s `cd sub && npm test` asks, naming the sub-package\'s test script; declined, it never runs',
    suite.test(async () => {
      plant();
      const undo = withUserSettings(world, ALWAYS_BOTH);
      try {
        const s = await suite.launch(world, 'write');
        await s.waitForReady();
        const { dialog } = await declinedCall(s, 'run_shell_command', SUB_TEST, /scripts\.test/);
        expect(shows(dialog, 'package.json scripts.test: echo key=$OPENAI_API_KEY')).toBe(true);
        expect(shows(dialog, 'sub-ran.txt')).toBe(true);
        expect(existsSync(SUB_RAN())).toBe(false);
      } finally {
        undo();
      }
    }),
  );

  it(
    "negative control, the approval guard taken away: with the stored rules the model's git commit and cd sub && npm test run with no dialog, and the hook and the script get the model key",
    suite.test(async () => {
      plant();
      const undo = withUserSettings(world, ALWAYS_BOTH);
      try {
        const s = await startWithoutGuard(suite, world, {
          MEM0_API_KEY: MEM0_KEY,
          OPENAI_API_KEY: MODEL_KEY,
        });
        await s.waitForReady();
        expect(await modelCalls(s, 'run_shell_command', COMMIT)).toBe(true);
        expect(readFileSync(HOOK_RAN(), 'utf8')).toBe(`key=${MODEL_KEY}\n`);
        expect(await modelCalls(s, 'run_shell_command', SUB_TEST)).toBe(true);
        expect(readFileSync(SUB_RAN(), 'utf8')).toBe(`key=${MODEL_KEY}\n`);
      } finally {
        undo();
      }
    }),
  );

  it(
    'write: with "Always allow npm ci" stored, the model\'s npm ci asks, naming the dependency with an install script; declined, it never runs',
    suite.test(async () => {
      plantDependency();
      const undo = withUserSettings(world, ALWAYS_CI);
      try {
        const s = await suite.launch(world, 'write');
        await s.waitForReady();
        const { dialog } = await declinedCall(s, 'run_shell_command', NPM_CI, /install scripts/);
        expect(shows(dialog, 'package-lock.json: 1 dependency with install scripts (dep-with-script)')).toBe(
          true,
        );
        expect(existsSync(DEP_RAN())).toBe(false);
      } finally {
        undo();
      }
    }),
  );

  it(
    'negative control, the approval guard taken away: with "Always allow npm ci" stored the model\'s npm ci runs with no dialog and the dependency\'s postinstall gets the model key',
    suite.test(async () => {
      plantDependency();
      const undo = withUserSettings(world, ALWAYS_CI);
      try {
        const s = await startWithoutGuard(suite, world, {
          MEM0_API_KEY: MEM0_KEY,
          OPENAI_API_KEY: MODEL_KEY,
        });
        await s.waitForReady();
        expect(await modelCalls(s, 'run_shell_command', NPM_CI)).toBe(true);
        expect(readFileSync(DEP_RAN(), 'utf8')).toBe(`key=${MODEL_KEY}\n`);
      } finally {
        undo();
        rmSync(join(world.repo, 'node_modules'), { recursive: true, force: true });
      }
    }),
  );
});
