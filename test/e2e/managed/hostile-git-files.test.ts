// Files git reads because the repository's configuration names them. `blame.ignoreRevsFile` makes
// `git blame` read a file and, for its first line that is no object name, die with
// `fatal: invalid object name: <that line>` — and Qwen 0.24.4 runs `git blame` for the model with no
// dialog (a read-only git subcommand). On the real Qwen through `launch-qwen` as a non-root user:
//
// - a `.git/config` naming a file of the home (`~/.git-credentials`), or one outside the repository
//   by an absolute path, refuses the launch with the key named; no Qwen starts;
// - one naming the repository's own `.git-blame-ignore-revs` (the usual setting) starts, and the
//   model's `git blame` runs with no dialog;
// - negative control, Qwen started without the launcher: the model's `git blame` runs with no
//   dialog and the first line of the developer's `~/.git-credentials` — a token — reaches the model.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GIT_CONFIG_POLICY } from '../../../src/policy/git-config.js';
import { ANSWER, modelCalls, repoGit, startHostileWorld, toolOutput } from './hostile-world.js';
import { managedSuite } from './suite.js';
import { type ManagedWorld, MODEL_KEY } from './world.js';

const TOKEN = 'ctx-e2e-token-gitfiles-2c19';
const MEM0_KEY = 'm0-e2e-gitfiles-key-7e40';
const DEVELOPER_TOKEN = 'ghp_E2EDEVELOPERTOKEN5531';

let world: ManagedWorld;

const suite = managedSuite(
  async (own) => {
    ({ world } = await startHostileWorld(own, {
      label: 'gitfiles',
      token: TOKEN,
      mem0Key: MEM0_KEY,
      document: { id: 'kb-gitfiles', content: 'KB-GITFILES-1: nothing here.' },
    }));
    // The developer's own credential file, as `git credential-store` writes it.
    world.plant(join(world.user.home, '.git-credentials'), `https://dev:${DEVELOPER_TOKEN}@github.com\n`);
    chmodSync(join(world.user.home, '.git-credentials'), 0o600);
  },
  {
    afterEach: () => {
      rmSync(world.repo, { recursive: true, force: true });
      mkdirSync(world.repo, { mode: 0o755 });
      chmodSync(world.repo, 0o755);
      execFileSync('chown', [`${world.user.uid}:${world.user.gid}`, world.repo]);
    },
  },
);

function git(...args: string[]): void {
  repoGit(world.repo, ...args);
}

/** A repository with one commit whose configuration sets `key` (`blame.ignoreRevsFile`) to `file`. */
function plantRepository(file: string, key = 'blame.ignoreRevsFile'): void {
  git('init', '-q', '-b', 'main');
  writeFileSync(join(world.repo, 'a.txt'), 'one\n');
  writeFileSync(join(world.repo, '.git-blame-ignore-revs'), '# formatting commits\n');
  git('add', 'a.txt', '.git-blame-ignore-revs');
  git('commit', '-qm', 'one');
  git('config', key, file);
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
}

const WHY = GIT_CONFIG_POLICY.files['blame.ignorerevsfile'];
const FIX =
  'fix: write a file of the repository, or remove it (git config --file <repo>/.git/config --unset-all blame.ignorerevsfile)';
const OUTSIDE = [
  ['~/.git-credentials', 'this one is below a home directory'],
  ['/etc/hostname', 'it leads to /etc/hostname, outside the repository <repo>'],
] as const;

/** The launcher refuses the write session with `line` alone, exit 1, and the model is never asked. */
async function refusedStart(line: string): Promise<void> {
  const requestsBefore = world.model.requests.length;
  const s = await suite.launch(world, 'write');
  const exit = await s.term.waitForExit(30_000);
  await s.term.flush();
  expect({ exit: exit.exitCode, shown: s.launcherLines({ [world.repo]: '<repo>' }) }).toEqual({
    exit: 1,
    shown: [
      line,
      '1 thing(s) in the repository or your home would change the managed write session; nothing was started',
    ],
  });
  expect(world.model.requests.length).toBe(requestsBefore);
}

/** Qwen started without the launcher runs the model's `command` with no dialog; returns what it printed. */
async function unguardedOutput(command: string): Promise<string> {
  const s = await suite.direct(world, 'write', {
    credentials: { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY },
  });
  await s.waitForReady();
  const since = world.model.requests.length;
  expect(await modelCalls(s, 'run_shell_command', { command }, ANSWER)).toBe(true);
  return toolOutput(world, since);
}

describe('blame.ignoreRevsFile', () => {
  it.each(OUTSIDE)(
    'write: `%s` refuses the launch, naming the key; no Qwen starts',
    suite.test(async (_fixtures, file, where) => {
      plantRepository(file);
      await refusedStart(`<repo>/.git/config: blame.ignorerevsfile: ${WHY}; ${where}; ${FIX}`);
    }),
  );

  it(
    "write: the repository's own .git-blame-ignore-revs starts, and the model's git blame runs with no dialog",
    suite.test(async () => {
      plantRepository('.git-blame-ignore-revs');
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      const since = world.model.requests.length;
      expect(await modelCalls(s, 'run_shell_command', { command: 'git blame a.txt' }, ANSWER)).toBe(true);
      expect(toolOutput(world, since)).toContain('one');
    }),
  );

  it(
    "negative control, Qwen started without the launcher: the model's git blame sends the developer's token to the model, no dialog",
    suite.test(async () => {
      plantRepository('~/.git-credentials');
      expect(await unguardedOutput('git blame a.txt')).toContain(
        `invalid object name: https://dev:${DEVELOPER_TOKEN}@github.com`,
      );
    }),
  );
});

// `core.attributesFile`: git diff reads it as attributes and warns, on stderr, about every word that is
// no valid attribute name — a `~/.netrc` password holding a `/`, `+` or `:` among them. Measured on
// 0.24.4: Qwen runs the model's `git diff` with no dialog and hands it both streams.
describe('core.attributesFile', () => {
  const NETRC_PASSWORD = 's3cret/E2E+netrc:4471';
  const ATTRIBUTES_WHY = GIT_CONFIG_POLICY.files['core.attributesfile'];

  /** The developer's `~/.netrc`, and a change in the repository for `git diff` to show. */
  function plantNetrc(file: string): void {
    world.plant(
      join(world.user.home, '.netrc'),
      `machine git.example.com login dev password ${NETRC_PASSWORD}\n`,
    );
    chmodSync(join(world.user.home, '.netrc'), 0o600);
    plantRepository(file, 'core.attributesFile');
    writeFileSync(join(world.repo, 'a.txt'), 'one\ntwo\n');
    execFileSync('chown', [`${world.user.uid}:${world.user.gid}`, join(world.repo, 'a.txt')]);
  }

  it.each([
    ['~/.netrc', 'this one is below a home directory'],
    [
      '%(prefix)/../etc/hostname',
      "this one is below git's own installation prefix (git reads a leading %(prefix)/ so)",
    ],
  ])(
    'write: `%s` refuses the launch, naming the key; no Qwen starts',
    suite.test(async (_fixtures, file, where) => {
      plantNetrc(file);
      await refusedStart(
        `<repo>/.git/config: core.attributesfile: ${ATTRIBUTES_WHY}; ${where}; fix: write a file of the repository, or remove it (git config --file <repo>/.git/config --unset-all core.attributesfile)`,
      );
    }),
  );

  it(
    "negative control, Qwen started without the launcher: the model's git diff sends the developer's netrc password to the model, no dialog",
    suite.test(async () => {
      plantNetrc('~/.netrc');
      expect(await unguardedOutput('git diff')).toContain(`${NETRC_PASSWORD} is not a valid attribute name`);
    }),
  );
});
