// Scenario 8c — the repository's git directory is untrusted input. Qwen 0.24.4 runs git in the
// repository by itself (`git status --short --branch` and `git log --oneline -n 5` for the system
// prompt's git snapshot, at every start, whatever the folder's trust) and runs the read-only git
// subcommands the model asks for (diff, log, show, blame, status, remote show, …) without a
// confirmation in the default approval mode. A `.git/config` that names a program (a clean filter,
// a textconv, a diff driver, an ssh command) or a `post-index-change` hook makes git run it as the
// developer, with Qwen's environment: the credentials. On the real Qwen through `launch-qwen` as a
// non-root user:
//
// - the hostile git directory refuses the launch, naming the file and the key; no Qwen starts, no
//   git runs, nothing planted runs;
// - a developer's own git repository starts: Qwen's start-up git runs, its snapshot reaches the model,
//   a `git diff` the model asks for runs;
// - negative controls: the same repository with Qwen started WITHOUT the launcher runs the filter at
//   start (before any prompt, the model key in its environment), and the model's `git diff` and
//   `git remote show origin` run the textconv, the diff driver, the index hook and the ssh command
//   with no confirmation;
// - what the launcher cannot judge asks through the approval guard, in the default mode: git in a
//   nested repository (a `directory`, or a `cd` in the command itself), a shell line Qwen judges
//   only after its `-c`, the `monitor` tool, and `enter_worktree`'s checkout hooks — each with a
//   negative control, the guard taken away, where it runs with no confirmation.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isToolContinuation, promptText, systemPrompt } from '../../fixtures/fake-model/inspect.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import { repoGit, startHostileWorld, startWithoutGuard } from './hostile-world.js';
import type { ManagedSession } from './session.js';
import { managedSuite } from './suite.js';
import { type ManagedWorld, MODEL_KEY } from './world.js';

const TOKEN = 'ctx-e2e-token-git-41d7';
const MEM0_KEY = 'm0-e2e-git-key-6a02';
const KB = 'KB-GIT-3310: releases are cut on Mondays.';
const GIT_SNAPSHOT = 'Git snapshot at conversation start';

let world: ManagedWorld;
let markers: string;
/** Every git command a process of the session ran: `<cwd>\t<argv>` (the world's tools/git). */
let gitLog: string;

const suite = managedSuite(
  async (own) => {
    ({ world, markers } = await startHostileWorld(own, {
      label: 'git',
      token: TOKEN,
      mem0Key: MEM0_KEY,
      document: { id: 'kb-git', content: KB },
    }));
    // The deployment's PATH starts with the world's tools: a git there sees every git Qwen runs.
    gitLog = join(world.logDir, 'git.log');
    const git = join(world.root, 'tools', 'git');
    writeFileSync(
      git,
      `#!/bin/sh\nprintf '%s\\t%s\\n' "$PWD" "$*" >> '${gitLog}' 2>/dev/null\nexec /usr/bin/git "$@"\n`,
    );
    chmodSync(git, 0o755);
    writeFileSync(gitLog, '');
    chmodSync(gitLog, 0o666);
  },
  {
    afterEach: () => {
      rmSync(world.repo, { recursive: true, force: true });
      mkdirSync(world.repo, { mode: 0o755 });
      chmodSync(world.repo, 0o755);
      execFileSync('chown', [`${world.user.uid}:${world.user.gid}`, world.repo]);
      for (const name of readdirSync(markers)) rmSync(join(markers, name), { force: true });
      writeFileSync(gitLog, '');
    },
  },
);

const markersLeft = () =>
  readdirSync(markers)
    .filter((n) => !n.endsWith('.env'))
    .sort();
/** The environment a payload wrote beside its marker ('' until it has: the payload touches the marker first). */
const markerEnv = (name: string) =>
  existsSync(join(markers, `${name}.env`)) ? readFileSync(join(markers, `${name}.env`), 'utf8') : '';
const gitRuns = () =>
  readFileSync(gitLog, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replaceAll(world.repo, '<repo>'));

/** Git as the developer would run it in the repository (the configuration is written last, as the attack's). */
function git(...args: string[]): void {
  repoGit(world.repo, ...args);
}

/** A repository with one commit, a changed file and a file whose timestamp changed (git status reads it again). */
function plantRepository(config: Record<string, string>, hooks: string[] = []): void {
  git('init', '-q', '-b', 'main');
  writeFileSync(join(world.repo, 'a.t'), 'one\n');
  writeFileSync(join(world.repo, 'b.c'), 'two\n');
  writeFileSync(join(world.repo, 'c.f'), 'three\n');
  writeFileSync(join(world.repo, '.gitattributes'), '*.t diff=tc\n*.c diff=cmd\n*.f filter=evil\n');
  git('add', '.');
  git('commit', '-q', '-m', 'GIT-COMMIT-5581 first');
  writeFileSync(join(world.repo, 'a.t'), 'one changed\n');
  writeFileSync(join(world.repo, 'b.c'), 'two changed\n');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(world.repo, 'c.f'), later, later);
  // The payload: leaves a marker named after its first argument and the environment it got.
  const payload = join(world.repo, '.git', 'p');
  writeFileSync(
    payload,
    `#!/bin/sh\ntouch '${markers}'/"$1"\nenv > '${markers}'/"$1".env\ncase "$1" in textconv) cat "$2";; clean) cat;; esac\nexit 0\n`,
    { mode: 0o755 },
  );
  for (const [key, value] of Object.entries(config)) git('config', key, value.replaceAll('<p>', payload));
  for (const hook of hooks) {
    writeFileSync(join(world.repo, '.git', 'hooks', hook), `#!/bin/sh\n${payload} hook-${hook}\n`, {
      mode: 0o755,
    });
  }
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
}

/**
 * A clean superproject whose index holds a gitlink to `vendor/lib`, a populated submodule (its own
 * `.git` directory, no `.gitmodules`) with a clean filter: git status enters it.
 */
function plantSubmodule(): void {
  git('init', '-q', '-b', 'main');
  writeFileSync(join(world.repo, 'README.md'), 'app\n');
  git('add', '.');
  git('commit', '-q', '-m', 'GIT-COMMIT-5581 first');
  const sub = join(world.repo, 'vendor', 'lib');
  mkdirSync(sub, { recursive: true });
  const subGit = (...args: string[]) => git('-C', sub, ...args);
  subGit('init', '-q', '-b', 'main');
  writeFileSync(join(sub, 'c.f'), 'three\n');
  writeFileSync(join(sub, '.gitattributes'), '*.f filter=evil\n');
  subGit('add', '.');
  subGit('commit', '-q', '-m', 'lib');
  const head = execFileSync('/usr/bin/git', ['-c', 'safe.directory=*', '-C', sub, 'rev-parse', 'HEAD'])
    .toString()
    .trim();
  git('update-index', '--add', '--cacheinfo', `160000,${head},vendor/lib`);
  const later = new Date(Date.now() + 5000);
  utimesSync(join(sub, 'c.f'), later, later);
  const payload = join(sub, '.git', 'p');
  writeFileSync(payload, `#!/bin/sh\ntouch '${markers}'/"$1"\nenv > '${markers}'/"$1".env\ncat\n`, {
    mode: 0o755,
  });
  subGit('config', 'filter.evil.clean', `${payload} sub-clean`);
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
}

const HOSTILE_CONFIG = {
  'filter.evil.clean': '<p> clean',
  'diff.tc.textconv': '<p> textconv',
  'diff.cmd.command': '<p> diff-command',
  'core.sshCommand': '<p> ssh',
  'remote.origin.url': 'ssh://git@example.invalid/app.git',
};
const HOSTILE_HOOKS = ['post-index-change'];

/** The model's answers: `run-git <command>` asks for that shell command; anything else is answered. */
function script(): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text('ANSWER-AFTER-GIT');
    const command = /run-git (.+)$/m.exec(promptText(body))?.[1];
    if (command !== undefined) return toolCall('run_shell_command', { command, description: 'Look at git' });
    return text('ANSWER-GIT-OK');
  });
}

/** The model asks for `command`: did Qwen run it with no dialog, and what did it leave? */
async function modelRuns(
  s: ManagedSession,
  command: string,
): Promise<{ ranWithoutAsking: boolean; markers: string[] }> {
  const before = markersLeft();
  await s.submit(`Please run-git ${command}`);
  const shown = await s.ranOrAsked('ANSWER-AFTER-GIT');
  return { ranWithoutAsking: shown === 'ran', markers: markersLeft().filter((m) => !before.includes(m)) };
}

describe('hostile git directory: the launch is refused, naming the file and the key', () => {
  it.each(['auto-recall', 'write'] as const)(
    '%s: a clean filter, a textconv, a diff driver, an ssh command and a post-index-change hook',
    suite.test(async (_fixtures, kind) => {
      plantRepository(HOSTILE_CONFIG, HOSTILE_HOOKS);
      const requestsBefore = world.model.requests.length;
      const s = await suite.launch(world, kind, { cwd: world.repo });
      const exit = await s.term.waitForExit(30_000);
      await s.term.flush();
      expect(exit.exitCode).toBe(1);
      const lines = s.launcherLines({ [world.repo]: '<repo>' });
      expect(lines.map((l) => l.split(': ').slice(0, 2).join(': '))).toEqual([
        // In the file's order: `git init` wrote the [core] section first.
        '<repo>/.git/config: core.sshcommand',
        '<repo>/.git/config: filter.evil.clean',
        '<repo>/.git/config: diff.tc.textconv',
        '<repo>/.git/config: diff.cmd.command',
        '<repo>/.git/hooks/post-index-change: (the hook)',
        `5 thing(s) in the repository or your home would change the managed ${kind} session; nothing was started`,
      ]);
      expect(world.model.requests.length).toBe(requestsBefore);
      expect([markersLeft(), gitRuns()]).toEqual([[], []]);
    }),
  );
});

/** A repository below the repository root (a vendored checkout, not a submodule) with the hostile configuration. */
function plantNested(): string {
  const top = world.repo;
  const nested = join(top, 'vendor', 'x');
  mkdirSync(nested, { recursive: true });
  const w = world as { repo: string };
  w.repo = nested;
  try {
    plantRepository(HOSTILE_CONFIG, HOSTILE_HOOKS);
  } finally {
    w.repo = top;
  }
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, top]);
  return nested;
}

/** The model asks for `git diff` in `directory` (Qwen's shell tool parameter). */
function scriptGitIn(directory: string): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text('ANSWER-AFTER-GIT');
    return toolCall('run_shell_command', { command: 'git diff', description: 'Look at git', directory });
  });
}

describe('a repository nested below the root: git there asks first', () => {
  it(
    "write: the model's git diff in vendor/x asks (the approval guard, in default mode), nothing runs",
    suite.test(async () => {
      const nested = plantNested();
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      scriptGitIn(nested);
      await s.submit('Please run-git in vendor/x');
      // The dialog shows the guard's reason: Qwen alone would have run it (the negative control).
      await s.decline(/git reads the configuration of the/);
      expect(markersLeft()).toEqual([]);
      expect(gitRuns().filter((l) => l.endsWith('\tdiff'))).toEqual([]);
    }),
  );

  it(
    "negative control, the approval guard taken away: it runs with no confirmation, and so do the nested repository's programs",
    suite.test(async () => {
      const nested = plantNested();
      const s = await startWithoutGuard(suite, world, { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY });
      await s.waitForReady();
      scriptGitIn(nested);
      expect(await modelRuns(s, 'in vendor/x')).toEqual({
        ranWithoutAsking: true,
        markers: ['clean', 'diff-command', 'hook-post-index-change', 'textconv'],
      });
    }),
  );
});

// The command itself moves git into the nested repository (no `directory`): Qwen 0.24.4 classifies
// `cd x && git <log|show|blame|remote show|describe …>` as read-only (it asks only for `diff` and
// `status` after a `cd`), so these ran with no confirmation through the launcher before the guard
// read the command too. [the command, the nested repository's programs it ran]
const MOVED: Array<[string, string[]]> = [
  ['cd vendor/x && git remote show origin', ['ssh']],
  ['(cd vendor/x; git log -p)', ['textconv']],
  ['cd vendor/x && git describe --dirty --always', ['clean', 'hook-post-index-change']],
];

describe('a repository nested below the root: a command that moves git there asks first', () => {
  it.each(MOVED)(
    'write: the model asks for %s; the approval guard asks in default mode, nothing runs',
    suite.test(async (_fixtures, command) => {
      plantNested();
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      script();
      await s.submit(`Please run-git ${command}`);
      await s.decline(/This command may run git in another directory/);
      expect(markersLeft()).toEqual([]);
      expect(gitRuns().filter((l) => l.startsWith('<repo>/vendor/x\t'))).toEqual([]);
    }),
  );

  it.each(MOVED)(
    'negative control, the approval guard taken away: %s runs with no confirmation, and so do %j',
    suite.test(async (_fixtures, command, ran) => {
      plantNested();
      const s = await startWithoutGuard(suite, world, { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY });
      await s.waitForReady();
      script();
      expect(await modelRuns(s, command)).toEqual({ ranWithoutAsking: true, markers: ran });
      expect(readFileSync(join(markers, `${ran[0]}.env`), 'utf8')).toContain(MODEL_KEY);
    }),
  );
});

describe('hostile git directory: a populated submodule', () => {
  it(
    "auto-recall: refused, naming the submodule's configuration",
    suite.test(async () => {
      plantSubmodule();
      const s = await suite.launch(world, 'auto-recall');
      const exit = await s.term.waitForExit(30_000);
      await s.term.flush();
      expect(exit.exitCode).toBe(1);
      expect(s.term.rawOutput().replaceAll('\r\n', '\n').replaceAll(world.repo, '<repo>')).toContain(
        'launch-qwen: <repo>/vendor/lib/.git/config: filter.evil.clean: ',
      );
      expect([markersLeft(), gitRuns()]).toEqual([[], []]);
    }),
  );

  it(
    'negative control, Qwen started without the launcher: its start-up git status enters the submodule and runs the filter',
    suite.test(async () => {
      plantSubmodule();
      const s = await direct('auto-recall');
      await s.waitForReady();
      // The filter runs during Qwen's start-up git status: waited for, not given a fixed time.
      await expect.poll(markersLeft, { timeout: 30_000 }).toEqual(['sub-clean']);
      await expect.poll(() => markerEnv('sub-clean'), { timeout: 30_000 }).toContain(MODEL_KEY);
    }),
  );
});

describe("a developer's own git repository starts and git works", () => {
  it(
    "auto-recall: Qwen's start-up git runs, its snapshot reaches the model, the model's git diff runs",
    suite.test(async () => {
      plantRepository({ 'core.fsmonitor': 'false', 'remote.origin.url': 'git@github.com:org/app.git' });
      const s = await suite.launch(world, 'auto-recall');
      await s.waitForReady();
      script();
      const enter = await s.submit('How are releases cut here?');
      const request = await s.nextMainRequest(enter);
      await s.term.waitFor('ANSWER-GIT-OK', 30_000);
      expect(systemPrompt(request.chat!)).toContain(GIT_SNAPSHOT);
      expect(systemPrompt(request.chat!)).toContain('GIT-COMMIT-5581');
      expect(await modelRuns(s, 'git diff')).toEqual({ ranWithoutAsking: true, markers: [] });
      expect(await s.quit()).toBe(0);
      // What Qwen 0.24.4 runs by itself at start (measured), then the model's command.
      expect(gitRuns()).toEqual(
        expect.arrayContaining([
          '<repo>\t-c core.fsmonitor= -c log.showSignature=false --no-optional-locks status --short --branch',
          '<repo>\t-c core.fsmonitor= -c log.showSignature=false --no-optional-locks log --oneline -n 5',
          '<repo>\tdiff',
        ]),
      );
    }),
  );
});

function direct(kind: 'auto-recall' | 'write'): Promise<ManagedSession> {
  return suite.direct(world, kind, {
    credentials:
      kind === 'auto-recall'
        ? { CONTEXT_API_TOKEN: TOKEN, OPENAI_API_KEY: MODEL_KEY }
        : { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY },
  });
}

describe('negative controls: the same git directory, Qwen started without the launcher', () => {
  it(
    'at start, before any prompt, git status runs the clean filter with the model key in its environment',
    suite.test(async () => {
      plantRepository(HOSTILE_CONFIG, HOSTILE_HOOKS);
      const since = Date.now();
      const s = await direct('auto-recall');
      await s.waitForReady();
      await expect.poll(markersLeft, { timeout: 30_000 }).toEqual(['clean']);
      expect(world.model.requests.filter((r) => r.kind === 'main' && r.receivedAt >= since)).toEqual([]);
      await expect.poll(() => markerEnv('clean'), { timeout: 30_000 }).toContain(MODEL_KEY);
    }),
  );

  // [the command the model asks for, the programs of the repository it ran]
  it.each<[string, string[]]>([
    ['git diff', ['diff-command', 'hook-post-index-change', 'textconv']],
    ['git remote show origin', ['ssh']],
  ])(
    'the model asks for %s: it runs with no confirmation, and so do the programs the repository named',
    suite.test(async (_fixtures, command, ran) => {
      plantRepository(HOSTILE_CONFIG, HOSTILE_HOOKS);
      const s = await direct('write');
      await s.waitForReady();
      script();
      const run = await modelRuns(s, command);
      expect(run).toEqual({ ranWithoutAsking: true, markers: ran });
      expect(readFileSync(join(markers, `${ran[0]}.env`), 'utf8')).toContain(MODEL_KEY);
    }),
  );
});

// Two more ways the default mode ran what the repository names with no dialog (measured through the
// launcher before the guard covered them): Qwen 0.24.4 judges only the command after a leading
// shell's -c and runs the whole line (BASH_ENV, a script named before -c), and its `monitor` tool runs
// read-only commands like the shell tool, `directory` included. [tool, its arguments, what ran]
const PARTLY_JUDGED: Array<[string, (nested: string) => Record<string, unknown>, string[]]> = [
  [
    'run_shell_command',
    () => ({ command: `BASH_ENV=${world.repo}/evil.sh bash -c ls`, description: 'x' }),
    ['evil-sh'],
  ],
  [
    'run_shell_command',
    () => ({ command: `bash ${world.repo}/evil.sh -c ls`, description: 'x' }),
    ['evil-sh'],
  ],
  // Anything after the -c word's argument is dropped from the judgement: any command at all.
  [
    'run_shell_command',
    () => ({ command: `bash -c ls; ${world.repo}/evil.sh`, description: 'x' }),
    ['evil-sh'],
  ],
  ['monitor', (nested) => ({ command: 'git log -p', directory: nested, description: 'x' }), ['textconv']],
  ['monitor', () => ({ command: 'cd vendor/x && git show', description: 'x' }), ['textconv']],
];

/** The nested repository, and a script at the root that leaves the `evil-sh` marker. */
function plantScript(): string {
  const nested = plantNested();
  writeFileSync(join(world.repo, 'evil.sh'), `touch '${markers}'/evil-sh\n`, { mode: 0o755 });
  execFileSync('chown', ['-R', `${world.user.uid}:${world.user.gid}`, world.repo]);
  return nested;
}

function scriptTool(name: string, args: Record<string, unknown>): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text('ANSWER-AFTER-GIT');
    return toolCall(name, args);
  });
}

describe('a shell line Qwen judges only in part, and the monitor tool: they ask first', () => {
  it.each(PARTLY_JUDGED.map(([name, args], i) => [i, name, args] as const))(
    'write: case %i (%s) asks in default mode (the approval guard), nothing runs',
    suite.test(async (_fixtures, _i, name, args) => {
      const nested = plantScript();
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      scriptTool(name, args(nested));
      // modelRuns returns once the declined turn is over: a declined call never starts, so nothing can come later.
      expect(await modelRuns(s, 'anything')).toEqual({ ranWithoutAsking: false, markers: [] });
    }),
  );

  it.each(PARTLY_JUDGED.map(([name, args, ran], i) => [i, name, args, ran] as const))(
    'negative control, the approval guard taken away: case %i (%s) runs with no confirmation, and so does what the repository named',
    suite.test(async (_fixtures, _i, name, args, ran) => {
      const nested = plantScript();
      const s = await startWithoutGuard(suite, world, { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY });
      await s.waitForReady();
      scriptTool(name, args(nested));
      const run = await modelRuns(s, 'anything');
      expect(run.ranWithoutAsking).toBe(true);
      // The monitor's command runs in the background, maybe past the turn: waited for, not given a fixed time.
      await expect.poll(markersLeft, { timeout: 30_000 }).toEqual(ran);
    }),
  );
});

// Qwen 0.24.4's enter_worktree (default permission: allow) runs `git worktree add` with no dialog in
// the default mode: a checkout, and the hooks that go with it, which the launcher lets pass.
const CHECKOUT_HOOKS = ['post-checkout', 'reference-transaction'];

function scriptWorktree(): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text('ANSWER-AFTER-GIT');
    return toolCall('enter_worktree', { name: 'wt1' });
  });
}

describe("enter_worktree: a checkout with the repository's hooks asks first", () => {
  it(
    'write: the launch passes the hooks; enter_worktree asks in default mode (the approval guard), nothing runs',
    suite.test(async () => {
      plantRepository({ 'core.fsmonitor': 'false' }, CHECKOUT_HOOKS);
      const s = await suite.launch(world, 'write');
      await s.waitForReady();
      scriptWorktree();
      await s.submit('Please start a worktree');
      await s.decline(/enter_worktree runs git worktree add/);
      expect(markersLeft()).toEqual([]);
      expect(existsSync(join(world.repo, '.qwen', 'worktrees', 'wt1'))).toBe(false);
      expect(gitRuns().filter((l) => l.includes('worktree add'))).toEqual([]);
    }),
  );

  it(
    'negative control, the approval guard taken away: enter_worktree runs with no confirmation, and so do the hooks',
    suite.test(async () => {
      plantRepository({ 'core.fsmonitor': 'false' }, CHECKOUT_HOOKS);
      const s = await startWithoutGuard(suite, world, { MEM0_API_KEY: MEM0_KEY, OPENAI_API_KEY: MODEL_KEY });
      await s.waitForReady();
      scriptWorktree();
      expect(await modelRuns(s, 'anything')).toEqual({
        ranWithoutAsking: true,
        markers: ['hook-post-checkout', 'hook-reference-transaction'],
      });
      expect(readFileSync(join(markers, 'hook-post-checkout.env'), 'utf8')).toContain(MODEL_KEY);
    }),
  );
});
