// The BUILT PreToolUse hooks (write confirmation, approval guard) as real child processes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { preToolUseEvent } from '../../../scripts/shared/hook-events.js';
import { HOOK_BUDGET_MS, HOOK_TIMEOUT_MS } from '../../../src/base/limits.js';
import {
  GIT_ELSEWHERE_REASON,
  GIT_MOVED_REASON,
  LINK_OUT_REASON,
  REPOSITORY_CODE_REASON,
  SHELL_OUTSIDE_REASON,
  SHELL_VARIABLE_REASON,
  UNREAD_REASON,
} from '../../../src/runtimes/approval-guard/decide.js';
import { runRuntime } from '../../fixtures/run-runtime.js';

const event = preToolUseEvent;
const decision = (stdout: string) => JSON.parse(stdout).hookSpecificOutput?.permissionDecision ?? 'none';

describe('write-confirmation.js', () => {
  const FILE = 'write-confirmation.js';
  it.each<[string, string | Buffer, string]>([
    ['ask in default mode', event(), 'ask'],
    ['ask in yolo mode', event({ permission_mode: 'yolo' }), 'ask'],
    ['deny in plan mode', event({ permission_mode: 'plan' }), 'deny'],
    ['deny an unknown mode', event({ permission_mode: 'trusted' }), 'deny'],
    ['deny invalid content', event({ tool_input: { content: '' } }), 'deny'],
    ['deny malformed JSON', '{"hook_event_name":', 'deny'],
    ['deny invalid UTF-8', Buffer.from([0x7b, 0xfe, 0x7d]), 'deny'],
    ['deny 1 MiB + 1 byte', `{"x":"${'a'.repeat(1024 * 1024)}"}`, 'deny'],
    ['pass through another tool', event({ tool_name: 'run_shell_command' }), 'none'],
    ['pass through another event', event({ hook_event_name: 'PostToolUse' }), 'none'],
  ])('%s', async (_name, stdin, expected) => {
    const run = await runRuntime(FILE, { stdin, env: {} });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(decision(run.stdout)).toBe(expected);
  });

  it('shows the exact content, and JSON.parse of the shown line is that content', async () => {
    const content = 'ok "quoted" <b>**x**</b>\n\tdone é部😀';
    const run = await runRuntime(FILE, { stdin: event({ tool_input: { content } }), env: {} });
    const reason: string = JSON.parse(run.stdout).hookSpecificOutput.permissionDecisionReason;
    const shown = reason.split('\n')[1]!;
    expect(JSON.parse(shown)).toBe(content);
    expect(shown).toBe('"ok \\"quoted\\" <b>**x**</b>\\n\\tdone é部😀"');
  });

  it('denies content a terminal would draw otherwise before any question, naming the code points', async () => {
    const content = 'Deploys are fine.\ufe01\u{E0100}\u202e\u200b\u{110bd}\u0085\u2028\u3164\u2800';
    const run = await runRuntime(FILE, {
      stdin: event({ permission_mode: 'yolo', tool_input: { content } }),
      env: {},
    });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason:
          'the memory content holds code points a terminal may draw as nothing or as something else (U+FE01, U+E0100, U+202E, U+200B, U+110BD, U+0085, U+2028, U+3164 and 1 more), so the text shown for approval would not be what is stored; nothing was stored: write it without them',
      },
    });
  });

  it('denies when stdin never closes, within the budget', async () => {
    const run = await runRuntime(FILE, { stdin: event().slice(0, 20), keepStdinOpen: true, env: {} });
    // The deny is written first, then the hook ends itself with SIGKILL: a threadpool read blocked
    // on the open pipe would keep process.exit() waiting. (Qwen always closes a hook's stdin.)
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
      code: null,
      signal: 'SIGKILL',
      stderr: '',
    });
    expect(decision(run.stdout)).toBe('deny');
    // Before Qwen's hook timeout would have killed it.
    expect(run.elapsedMs).toBeLessThan(HOOK_TIMEOUT_MS);
  });

  it('reads no provider config, even when one is named', async () => {
    // A FIFO with no writer: opening it for reading would block the hook until its budget ran out.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-wc-fifo-'));
    try {
      const fifo = path.join(dir, 'config.json');
      execFileSync('mkfifo', [fifo]);
      const run = await runRuntime(FILE, { stdin: event(), env: { QWEN_EXTERNAL_CONTEXT_CONFIG: fifo } });
      expect(decision(run.stdout)).toBe('ask');
      // Not held until its budget ran out (what opening the FIFO would do).
      expect(run.elapsedMs).toBeLessThan(HOOK_BUDGET_MS);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('works through a symlink, started from another directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-wc-'));
    try {
      const link = path.join(dir, 'hook.js');
      fs.symlinkSync(path.resolve('dist/runtime', FILE), link);
      const run = await runRuntime(FILE, { stdin: event(), env: {}, via: link, cwd: dir });
      expect(decision(run.stdout)).toBe('ask');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('approval-guard.js', () => {
  const FILE = 'approval-guard.js';
  const git = (command: string, directory: string | undefined, mode = 'default') =>
    event({ permission_mode: mode, tool_name: 'run_shell_command', tool_input: { command, directory } });
  const read = (tool: string, input: Record<string, unknown>, mode = 'default') =>
    event({ permission_mode: mode, tool_name: tool, tool_input: input });
  const OWN = createHash('sha256').update('/repo').digest('hex');
  const shell = (mode: string) =>
    event({ permission_mode: mode, tool_name: 'run_shell_command', tool_input: { command: 'touch x' } });
  it.each<[string, string | Buffer, Record<string, string>, string]>([
    ['asks in yolo (default modes)', shell('yolo'), {}, 'ask'],
    ['asks in auto (default modes)', shell('auto'), {}, 'ask'],
    ['no opinion in default', shell('default'), {}, 'none'],
    ['no opinion in auto_edit by default', shell('auto_edit'), {}, 'none'],
    ['no opinion in plan', shell('plan'), {}, 'none'],
    // auto-accept-edits approves web_fetch and web_search with no dialog (measured): the guard asks.
    [
      'web_fetch in auto_edit',
      read('web_fetch', { url: 'http://x/?d=1', prompt: 'p' }, 'auto_edit'),
      {},
      'ask',
    ],
    ['web_search in auto_edit', read('web_search', { query: 'q' }, 'auto_edit'), {}, 'ask'],
    // …and artifact (copies any file into the Qwen home, opens a browser) and image_gen (measured: artifact of /etc/hostname, no dialog).
    ['artifact in auto_edit', read('artifact', { file_path: '/etc/hostname' }, 'auto_edit'), {}, 'ask'],
    ['image_gen in auto_edit', read('image_gen', { prompt: 'p' }, 'auto_edit'), {}, 'ask'],
    ['artifact in default (Qwen asks itself)', read('artifact', { file_path: '/etc/hostname' }), {}, 'none'],
    // A skill grants its allowedTools for the session (bundled simplify: run_shell_command), and Qwen's
    // dialog names only the skill: asked in every mode (measured: the next shell line ran unasked).
    ['skill in default', read('skill', { skill: 'simplify' }), {}, 'ask'],
    ['skill in auto_edit', read('skill', { skill: 'simplify' }, 'auto_edit'), {}, 'ask'],
    ['skill in plan', read('skill', { skill: 'simplify' }, 'plan'), {}, 'ask'],
    // Qwen asks for them itself in default mode: a second ask would be a second dialog.
    ['web_fetch in default', read('web_fetch', { url: 'http://x/?d=1', prompt: 'p' }), {}, 'none'],
    // auto-accept-edits approves edits of git's own files, which decide what the no-dialog git commands run (measured).
    [
      'write_file .git/config in auto_edit',
      read('write_file', { file_path: '.git/config', content: 'x' }, 'auto_edit'),
      {},
      'ask',
    ],
    [
      'edit of a nested .git/config in auto_edit',
      read(
        'edit',
        { file_path: '/repo/vendor/x/.git/config', old_string: 'a', new_string: 'b' },
        'auto_edit',
      ),
      {},
      'ask',
    ],
    [
      'write_file of a post-index-change hook anywhere in auto_edit',
      read('write_file', { file_path: '.husky/post-index-change', content: 'x' }, 'auto_edit'),
      {},
      'ask',
    ],
    [
      'write_file .gitattributes in auto_edit (no program of its own)',
      read('write_file', { file_path: '.gitattributes', content: 'x' }, 'auto_edit'),
      {},
      'none',
    ],
    [
      'write_file .git/config in default (Qwen asks itself)',
      read('write_file', { file_path: '.git/config', content: 'x' }),
      {},
      'none',
    ],
    // auto-accept-edits approves a write anywhere: ~/.ssh/authorized_keys was created with no dialog (measured).
    [
      'write_file outside the repository in auto_edit',
      read('write_file', { file_path: '/home/dev/.ssh/authorized_keys', content: 'x' }, 'auto_edit'),
      {},
      'ask',
    ],
    [
      'edit climbing out of the repository in auto_edit',
      read('edit', { file_path: '../other/a.txt', old_string: 'a', new_string: 'b' }, 'auto_edit'),
      {},
      'ask',
    ],
    [
      'write_file outside the repository in default (Qwen asks itself, showing the path)',
      read('write_file', { file_path: '/home/dev/.ssh/authorized_keys', content: 'x' }),
      {},
      'none',
    ],
    [
      'an edit in auto_edit (what the mode is for)',
      read('write_file', { file_path: 'a.txt', content: 'x' }, 'auto_edit'),
      {},
      'none',
    ],
    [
      'configured modes: auto_edit guarded',
      shell('auto_edit'),
      { QWEN_MANAGED_GUARD_MODES: 'yolo,auto_edit' },
      'ask',
    ],
    ['configured modes: auto no longer guarded', shell('auto'), { QWEN_MANAGED_GUARD_MODES: 'yolo' }, 'none'],
    ['context_remember is left to the write hook', event({ permission_mode: 'yolo' }), {}, 'none'],
    ['another event', event({ hook_event_name: 'UserPromptSubmit', permission_mode: 'yolo' }), {}, 'none'],
    ['malformed JSON', '{"hook_event_name"', {}, 'none'],
    ['a JSON array', '[]', {}, 'none'],
    // Its size is the provider's choice: asks in every mode instead of having no opinion.
    ['1 MiB + 1 byte', `{"x":"${'a'.repeat(1024 * 1024)}"}`, {}, 'ask'],
    [
      'a shell call padded past 1 MiB, in default mode',
      event({
        tool_name: 'run_shell_command',
        tool_input: {
          command: 'cd vendor/x && git remote show origin',
          description: 'd'.repeat(1024 * 1024),
        },
      }),
      {},
      'ask',
    ],
    ['no tool name', event({ permission_mode: 'yolo', tool_name: undefined }), {}, 'none'],
    // git reads the configuration of the directory it runs in: only the repository root's was checked.
    ['git in another directory: asks in default', git('git diff', '/repo/vendor/x'), {}, 'ask'],
    ['git in another directory: asks in every mode', git('ls && git log -p', '/repo/sub', 'plan'), {}, 'ask'],
    [
      'git in another directory: asks with the guard modes emptied',
      git('git status', '/elsewhere'),
      { QWEN_MANAGED_GUARD_MODES: '' },
      'ask',
    ],
    ['git in the repository root: no opinion in default', git('git diff', '/repo'), {}, 'none'],
    ['git in the repository root, written with a slash', git('git diff', '/repo/'), {}, 'none'],
    ['git with no directory', git('git diff', undefined), {}, 'none'],
    ['another command in another directory', git('ls -la', '/repo/vendor/x'), {}, 'none'],
    // The command itself may move git (measured: `cd vendor/x && git remote show origin` ran the
    // nested repository's ssh command with no confirmation): asks in every mode, with no directory.
    ...(
      [
        'cd vendor/x && git remote show origin',
        '(cd vendor/x; git log -p)',
        'cd\\\n vendor/x && git show',
        'CD vendor/x; git show',
        '{ pushd vendor/x; git show; }',
        'git log && popd && git show',
        'cd && git log',
        'cd /repo/vendor && git log',
        'git -C vendor/x show',
        "git '-C' vendor/x show",
        'git --git-dir=vendor/x/.git log',
        'git -c core.fsmonitor=./x status',
        'git $OPT log',
        'xargs git -C vendor/x show < list',
        '/usr/bin/git --exec-path=. log',
        'GIT_DIR=vendor/x/.git git log',
        'env GIT_CONFIG_GLOBAL=x git log',
        'git"" -C vendor/x show',
        'git$EMPTY -C vendor/x show',
        'cd vendor/x && git.exe show',
      ] as const
    ).map((command): [string, string, Record<string, string>, string] => [
      `the command moves git: ${command}`,
      git(command, undefined),
      {},
      'ask',
    ]),
    // Qwen judges only what follows a leading shell's -c, and runs the whole line: asks in every mode.
    ...(
      [
        'BASH_ENV=/repo/evil.sh bash -c ls',
        'bash /repo/evil.sh -c ls',
        'bash -c ls; /repo/evil.sh',
        '"/bin/BASH" -lc ls',
        "X='a b' sh '-c' 'cat README.md'",
        'cmd.exe /c dir',
        'pwsh -Command Get-ChildItem',
      ] as const
    ).map((command): [string, string, Record<string, string>, string] => [
      `a shell judged in part: ${command}`,
      git(command, undefined),
      {},
      'ask',
    ]),
    [
      'a shell judged in part, through monitor',
      event({ tool_name: 'monitor', tool_input: { command: 'bash /repo/evil.sh -c "tail -f log"' } }),
      {},
      'ask',
    ],
    [
      'git elsewhere through monitor',
      event({ tool_name: 'monitor', tool_input: { command: 'git log -p', directory: '/repo/vendor/x' } }),
      {},
      'ask',
    ],
    [
      'monitor: cd and git',
      event({ tool_name: 'monitor', tool_input: { command: 'cd x && git show' } }),
      {},
      'ask',
    ],
    [
      'a script run by a shell, with no -c (Qwen asks itself)',
      git('bash scripts/build.sh', undefined),
      {},
      'none',
    ],
    ['a .sh path is not a shell', git('cat scripts/build.sh && ls cmd/ -c', undefined), {}, 'none'],
    // git worktree add runs the repository's checkout hooks: asks in every mode.
    [
      'enter_worktree in default',
      event({ tool_name: 'enter_worktree', tool_input: { name: 'wt1' } }),
      {},
      'ask',
    ],
    [
      'enter_worktree in plan, the guard modes emptied',
      event({ permission_mode: 'plan', tool_name: 'enter_worktree', tool_input: {} }),
      { QWEN_MANAGED_GUARD_MODES: '' },
      'ask',
    ],
    ['cd to the root itself', git('cd /repo && git log -p', undefined), {}, 'none'],
    ['cd to the root itself, quoted, with a slash', git('cd "/repo/" && git show', '/repo'), {}, 'none'],
    [
      'plain git commands in the root',
      git('git status && git diff --stat | head -20; git log -n 5', '/repo'),
      {},
      'none',
    ],
    [
      'git@host and git:// are not git',
      git('echo git@github.com:org/x.git git://host/x', undefined),
      {},
      'none',
    ],
    ['a .git path is not git', git('cd vendor/x && cat .git/config', undefined), {}, 'none'],
    // Qwen reads its own directories (every project's prompt logs under $QWEN_HOME/tmp) with no dialog.
    ['read_file in the repository', read('read_file', { file_path: '/repo/src/a.ts' }), {}, 'none'],
    ['read_file, a relative path', read('read_file', { file_path: 'src/a.ts' }), {}, 'none'],
    ['read_file of the root itself', read('read_file', { file_path: '/repo/' }), {}, 'none'],
    ['read_file of a sibling named like the root', read('read_file', { file_path: '/repo2/a' }), {}, 'ask'],
    [
      'read_file, .. out of the repository',
      read('read_file', { file_path: 'src/../../etc/passwd' }),
      {},
      'ask',
    ],
    [
      "read_file of another project's prompt log",
      read('read_file', { file_path: `/home/u/.qwen/tmp/${'a'.repeat(64)}/logs.json` }),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen' },
      'ask',
    ],
    [
      "read_file of this repository's own saved output",
      read('read_file', { file_path: `/home/u/.qwen/tmp/${OWN}/tool-results/x.txt` }),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen' },
      'none',
    ],
    [
      "this repository's own temporary directory, no runtime directory known",
      read('read_file', { file_path: `/home/u/.qwen/tmp/${OWN}/tool-results/x.txt` }),
      {},
      'ask',
    ],
    ['zoom_image outside', read('zoom_image', { file_path: '/tmp/a.png' }), {}, 'ask'],
    // write_file and edit run with no dialog in Qwen's auto-memory directories, and ask elsewhere.
    [
      'write_file into the user auto-memory',
      read('write_file', { file_path: '/home/u/.qwen/memories/MEMORY.md', content: 'x' }),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen', QWEN_HOME: '/home/u/.qwen' },
      'ask',
    ],
    [
      "edit in a project's auto-memory",
      read('edit', {
        file_path: '/home/u/.qwen/projects/-repo/memory/a.md',
        old_string: 'a',
        new_string: 'b',
      }),
      { QWEN_HOME: '/home/u/.qwen' },
      'ask',
    ],
    [
      'write_file elsewhere in the Qwen home (Qwen asks by itself)',
      read('write_file', { file_path: '/home/u/.qwen/settings.json', content: 'x' }),
      { QWEN_HOME: '/home/u/.qwen' },
      'none',
    ],
    [
      'write_file in the repository',
      read('write_file', { file_path: 'src/a.ts', content: 'x' }),
      { QWEN_HOME: '/home/u/.qwen' },
      'none',
    ],
    // Outside the repository and Qwen's directories Qwen asks by itself: a second ask is a second dialog.
    [
      "read_file elsewhere outside, Qwen's directories known",
      read('read_file', { file_path: '/etc/hosts' }),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen', QWEN_HOME: '/home/u/.qwen' },
      'none',
    ],
    [
      'read_file of the Qwen home, QWEN_HOME alone known',
      read('read_file', { file_path: '/home/u/.qwen/settings.json' }),
      { QWEN_HOME: '/home/u/.qwen' },
      'ask',
    ],
    [
      "glob stepping out, Qwen's directories known",
      read('glob', { pattern: '../**' }),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen' },
      'ask',
    ],
    [
      'read_file in plan mode, the guard modes emptied',
      read('read_file', { file_path: '/etc/hosts' }, 'plan'),
      { QWEN_MANAGED_GUARD_MODES: '' },
      'ask',
    ],
    ['grep_search with no path', read('grep_search', { pattern: 'x' }), {}, 'none'],
    ['grep_search in the Qwen home', read('grep_search', { pattern: 'x', path: '/home/u/.qwen' }), {}, 'ask'],
    ['glob in the repository', read('glob', { pattern: '**/*.ts', path: 'src' }), {}, 'none'],
    ['glob in the Qwen home', read('glob', { pattern: '**/*', path: '/home/u/.qwen' }), {}, 'ask'],
    ['glob, a pattern stepping out', read('glob', { pattern: 'src/../../**/logs.json' }), {}, 'ask'],
    ['glob, an absolute pattern', read('glob', { pattern: '/home/u/.qwen/**' }), {}, 'ask'],
    ['glob, .. inside a name is no step', read('glob', { pattern: 'a..b/**' }), {}, 'none'],
    ['list_directory outside', read('list_directory', { path: '/home/u/.qwen/tmp' }), {}, 'ask'],
    ['a path that is not a string', read('read_file', { file_path: ['/etc'] }), {}, 'ask'],
    // Qwen runs what its classifier reads as read-only (cat, head, grep, ls, …) with no dialog,
    // wherever it reads: a path outside the repository asks, in every mode.
    ['shell: cat of a file outside', git('cat /etc/passwd', undefined), {}, 'ask'],
    ['shell: head, quoted and escaped', git('head -n 3 "/etc/"pass\\wd', undefined), {}, 'ask'],
    ['shell: grep of the home', git('grep -r key ~', undefined), { HOME: '/etc' }, 'ask'],
    ['shell: ~ with no HOME known', git('cat ~/.aws/credentials', undefined), {}, 'ask'],
    ['shell: .. out of the repository', git('cat src/../../etc/passwd', undefined), {}, 'ask'],
    ['shell: a variable', git('cat "$HOME/.aws/credentials"', undefined), {}, 'ask'],
    ["shell: $'…' spells a slash", git("cat $'\\x2fetc/passwd'", undefined), {}, 'ask'],
    ['shell: a glob out', git('tail /e?c/pass*', undefined), {}, 'ask'],
    ['shell: a brace list', git('cat {README.md,/etc/passwd}', undefined), {}, 'ask'],
    ['shell: after an option', git('grep --file=/etc/passwd x', undefined), {}, 'ask'],
    ['shell: glued to a short option', git('grep -f/etc/passwd x', undefined), {}, 'ask'],
    ['shell: grep with its pattern from -e', git('grep -rne x /etc/passwd', undefined), {}, 'ask'],
    ['shell: rg --files lists a directory', git('rg --files /etc', undefined), {}, 'ask'],
    ['shell: sed after its script', git('sed -n 1p /etc/passwd', undefined), {}, 'ask'],
    ['shell: a redirection in', git('wc -l < /etc/passwd', undefined), {}, 'ask'],
    ['shell: a redirection before the name', git('2>/dev/null cat /etc/passwd', undefined), {}, 'ask'],
    ['shell: >&2 is no job separator', git('cat x >&2 /etc/passwd', undefined), {}, 'ask'],
    ['shell: an escaped ; is no separator', git('cat x\\;rm /etc/passwd', undefined), {}, 'ask'],
    ['shell: after a program Qwen asks for', git('npm -v; cat /etc/passwd', undefined), {}, 'ask'],
    ['shell: in a substitution', git('echo $(cat /etc/passwd)', undefined), {}, 'ask'],
    ['shell: cd out', git('cd /etc && cat passwd', undefined), {}, 'ask'],
    ['shell: a bare cd goes HOME', git('cd && cat .bashrc', undefined), { HOME: '/etc' }, 'ask'],
    ['shell: in yolo, the path reason', git('cat /etc/passwd', undefined, 'yolo'), {}, 'ask'],
    ['shell: git reads outside too', git('git diff --no-index /etc/passwd README.md', undefined), {}, 'ask'],
    ['shell: monitor', read('monitor', { command: 'tail -f /etc/passwd' }), {}, 'ask'],
    // grep -R, rg -L, find -L and tree -l walk through every link they meet, wherever it leads.
    ['shell: grep -R', git('grep -Rn key .', undefined), {}, 'ask'],
    ['shell: rg --follow', git('rg --follow key', undefined), {}, 'ask'],
    ['shell: find -L', git('find -L . -name "*.pem"', undefined), {}, 'ask'],
    ['shell: tree -l', git('tree -l', undefined), {}, 'ask'],
    ['shell: grep -r stays', git('grep -rn key .', undefined), {}, 'none'],
    // Inside the repository, and where Qwen asks by itself (showing the line), no second dialog.
    ['shell: cat inside', git('cat README.md src/a.ts 2>/dev/null | head -20', undefined), {}, 'none'],
    ['shell: inside, absolute', git('wc -l /repo/src/*.ts', undefined), {}, 'none'],
    [
      'shell: a pattern in quotes',
      git("sed -n '/api/p' README.md && awk '{print $1}' x", undefined),
      {},
      'none',
    ],
    ['shell: a path that does not exist', git('cat /nonexistent-h40/x', undefined), {}, 'none'],
    ["shell: grep's pattern names no file", git("grep -rn '/usr/bin' -- src", undefined), {}, 'none'],
    ['shell: a program Qwen asks for', git('npm test -- --config /etc/passwd', undefined), {}, 'none'],
    ['shell: a program by path', git('/usr/bin/env cat /etc/passwd', undefined), {}, 'none'],
    // A wrapper with nothing after it once looped forever in the repository-code rule: Qwen's timer
    // then ran the call unasked (test/unit/runtimes/approval-guard/shell-line-fuzz.test.ts).
    ['shell: env with no command, then cat', git('env; cat README.md', undefined, 'yolo'), {}, 'ask'],
    [
      'shell: wrappers with nothing after them',
      git('env -i; nice; timeout 5; sudo -u x', undefined),
      {},
      'none',
    ],
    ['shell: a compound command', git('for f in /etc/*; do wc -l $f; done', undefined), {}, 'none'],
    ['shell: less, which Qwen asks for', git('less /etc/passwd', undefined), {}, 'none'],
    ['shell: echo prints only', git('echo /etc/passwd $HOME', undefined), {}, 'none'],
    [
      "shell: this repository's own saved output",
      git(`tail -n 50 /home/u/.qwen/tmp/${OWN}/x.txt`, undefined),
      { QWEN_RUNTIME_DIR: '/home/u/.qwen' },
      'none',
    ],
    [
      'no working directory in the event',
      event({ tool_name: 'read_file', tool_input: { file_path: 'a' }, cwd: 'repo' }),
      {},
      'ask',
    ],
  ])('%s', async (_name, stdin, env, expected) => {
    const run = await runRuntime(FILE, { stdin, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(decision(run.stdout)).toBe(expected);
    if (expected === 'none') expect(run.stdout).toBe('{}');
  });

  it('names the directory, escaped, after a fixed reason', async () => {
    const run = await runRuntime(FILE, { stdin: git('git diff', '/repo/evil\u202edir'), env: {} });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: `${GIT_ELSEWHERE_REASON}"/repo/evil\\u202edir"`,
      },
    });
  });

  // Repository code a confirmed command runs with the session's environment: asked in every mode,
  // naming it (Qwen's own dialog names only the program); nothing asked when nothing of it runs.
  it.each([
    ['default', 'git commit -m wip', '.husky/_/pre-commit'],
    ['auto_edit', 'npm test', 'package.json scripts.test: vitest run'],
    ['yolo', 'make all', 'Makefile'],
    ['plan', './scripts/ci.sh', 'scripts/ci.sh'],
  ])('%s: `%s` asks, naming %s', async (mode, command, named) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-code-'));
    try {
      const repo = path.join(dir, 'repo');
      fs.mkdirSync(path.join(repo, '.git', 'hooks'), { recursive: true });
      fs.mkdirSync(path.join(repo, '.husky', '_'), { recursive: true });
      fs.mkdirSync(path.join(repo, 'scripts'));
      fs.writeFileSync(path.join(repo, '.git', 'config'), '[core]\n\thooksPath = .husky/_\n');
      fs.writeFileSync(path.join(repo, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n', { mode: 0o755 });
      fs.writeFileSync(path.join(repo, '.husky', '_', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
      fs.writeFileSync(path.join(repo, 'scripts', 'ci.sh'), '#!/bin/sh\n', { mode: 0o755 });
      fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
      fs.writeFileSync(path.join(repo, 'Makefile'), 'all:\n');
      const ask = async (line: string) =>
        JSON.parse(
          (
            await runRuntime(FILE, {
              stdin: event({
                permission_mode: mode,
                tool_name: 'run_shell_command',
                tool_input: { command: line },
                cwd: repo,
              }),
              env: {},
            })
          ).stdout,
        );
      expect(await ask(command)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'ask',
          permissionDecisionReason: `${REPOSITORY_CODE_REASON}${JSON.stringify(named)}`,
        },
      });
      // Without the hook, the script or the Makefile nothing of the repository's runs.
      fs.rmSync(path.join(repo, '.husky'), { recursive: true });
      fs.rmSync(path.join(repo, 'package.json'));
      fs.rmSync(path.join(repo, 'Makefile'));
      fs.rmSync(path.join(repo, 'scripts'), { recursive: true });
      const after = await ask(command);
      expect(after.hookSpecificOutput?.permissionDecisionReason ?? '').not.toContain(REPOSITORY_CODE_REASON);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // The build and test tools of policies/repository-code.json, and the forms that hide a tool's
  // directory: asked in every mode, naming the files; nothing asked once they are gone.
  it.each([
    ['default', 'cd sub && npm test', ['package.json scripts.test: vitest run']],
    ['auto_edit', 'cargo test', ['build.rs', 'Cargo.toml']],
    ['yolo', 'env -C sub make', ['sub/Makefile']],
    ['plan', 'python3 -m pytest -q', ['conftest.py', 'tests/test_api.py']],
    ['yolo', 'cd src/App && dotnet test', ['Directory.Build.props', 'src/App/App.csproj']],
    ['default', 'find . -name "*.txt" -exec ./x.sh {} \\;', ['x.sh']],
    ['yolo', 'node -r ./hook.js x.js', ['hook.js', 'x.js']],
    ['auto_edit', 'bazel build //...', ['tools/bazel', '.bazelrc']],
    // Measured with npm 11.19: `npm ci` ran a file: dependency's postinstall with the caller's environment.
    ['yolo', 'npm ci', ['package-lock.json: 1 dependency with install scripts (dep-with-script)']],
  ])('%s: `%s` asks, naming %j', async (mode, command, named) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-build-'));
    try {
      const repo = path.join(dir, 'repo');
      for (const sub of ['sub', 'tests', 'src/App', 'tools'])
        fs.mkdirSync(path.join(repo, sub), { recursive: true });
      const planted: Record<string, string> = {
        'sub/package.json': JSON.stringify({ scripts: { test: 'vitest run' } }),
        'sub/Makefile': 'all:\n',
        'build.rs': 'fn main() {}\n',
        'Cargo.toml': '[package]\n',
        'conftest.py': 'import os\n',
        'tests/test_api.py': 'def test_x(): pass\n',
        'Directory.Build.props': '<Project/>\n',
        'src/App/App.csproj': '<Project Sdk="Microsoft.NET.Sdk"/>\n',
        'x.sh': '#!/bin/sh\n',
        'hook.js': '\n',
        'x.js': '\n',
        'tools/bazel': '#!/bin/sh\n',
        '.bazelrc': 'build --config=x\n',
        'package-lock.json': JSON.stringify({
          lockfileVersion: 3,
          packages: { '': {}, 'node_modules/dep-with-script': { hasInstallScript: true } },
        }),
      };
      for (const [file, text] of Object.entries(planted))
        fs.writeFileSync(path.join(repo, file), text, { mode: file.endsWith('.sh') ? 0o755 : 0o644 });
      const ask = async () =>
        JSON.parse(
          (
            await runRuntime(FILE, {
              stdin: event({
                permission_mode: mode,
                tool_name: 'run_shell_command',
                tool_input: { command },
                cwd: repo,
              }),
              env: {},
            })
          ).stdout,
        );
      expect(await ask()).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'ask',
          permissionDecisionReason: `${REPOSITORY_CODE_REASON}${JSON.stringify(named.join('; '))}`,
        },
      });
      for (const file of Object.keys(planted)) fs.rmSync(path.join(repo, file));
      const after = await ask();
      expect(after.hookSpecificOutput?.permissionDecisionReason ?? '').not.toContain(REPOSITORY_CODE_REASON);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('denies a file tool through a link out of the repository, naming the link and its target', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-link-'));
    try {
      const repo = path.join(dir, 'repo');
      fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'home', 'tmp'), { recursive: true });
      fs.symlinkSync(path.join(dir, 'home', 'tmp'), path.join(repo, 'notes'));
      fs.symlinkSync(path.join(repo, 'src'), path.join(repo, 'code'));
      const at = (input: Record<string, unknown>) =>
        event({ tool_name: 'glob', tool_input: input, cwd: repo });
      const out = await runRuntime(FILE, { stdin: at({ pattern: '**', path: 'notes/x' }), env: {} });
      expect(JSON.parse(out.stdout).hookSpecificOutput).toEqual({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: `${LINK_OUT_REASON}"notes/x" (a link to ${JSON.stringify(path.join(dir, 'home', 'tmp', 'x'))})`,
      });
      const inside = await runRuntime(FILE, { stdin: at({ pattern: '**', path: 'code' }), env: {} });
      expect(inside.stdout).toBe('{}');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('through links it names the target: file tools are denied, a shell read asks', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-link-'));
    try {
      const repo = path.join(dir, 'repo');
      fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'secret.txt'), 'x');
      // Untracked links (no git here at all): the launcher judges only the index's.
      fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(repo, 'notes.txt'));
      fs.symlinkSync(dir, path.join(repo, 'sub', 'up'));
      fs.symlinkSync(path.join(repo, 'sub'), path.join(repo, 'code'));
      const target = JSON.stringify(path.join(dir, 'secret.txt'));
      const run = async (tool: string, input: Record<string, unknown>) =>
        JSON.parse(
          (
            await runRuntime(FILE, {
              stdin: event({ tool_name: tool, tool_input: input, cwd: repo }),
              env: {},
            })
          ).stdout,
        ).hookSpecificOutput;
      for (const [tool, input] of [
        ['read_file', { file_path: 'notes.txt' }],
        ['read_file', { file_path: path.join(repo, 'sub', 'up', 'secret.txt') }],
        ['edit', { file_path: 'notes.txt', old_string: 'x', new_string: 'y' }],
        ['write_file', { file_path: 'code/up/secret.txt', content: 'y' }],
        ['notebook_edit', { notebook_path: 'notes.txt', new_source: 'y' }],
        ['list_directory', { path: 'sub/up' }],
      ] as const) {
        const out = await run(tool, input);
        expect(out?.permissionDecision).toBe('deny');
        expect(out?.permissionDecisionReason).toContain(LINK_OUT_REASON);
        expect(out?.permissionDecisionReason).toContain(`(a link to ${JSON.stringify(dir).slice(0, -1)}`);
      }
      expect(await run('read_file', { file_path: 'code/x' })).toBeUndefined();
      expect((await run('run_shell_command', { command: 'cat notes.txt' })).permissionDecisionReason).toBe(
        `${SHELL_OUTSIDE_REASON}"notes.txt" (a link to ${target})`,
      );
      expect(
        (await run('run_shell_command', { command: 'cd sub && head up/secret.txt' }))?.permissionDecision,
      ).toBe('ask');
      expect((await run('run_shell_command', { command: 'ls -R $D' })).permissionDecisionReason).toBe(
        `${SHELL_VARIABLE_REASON}"$D"`,
      );
      expect(await run('run_shell_command', { command: 'cat code/x 2>/dev/null' })).toBeUndefined();
      // A glob bash expands through a link out (`.*` may match `..`).
      expect(
        (await run('run_shell_command', { command: 'wc -l sub/*/secret.txt' })).permissionDecisionReason,
      ).toBe(
        `${SHELL_OUTSIDE_REASON}"sub/*/secret.txt" (bash expands it to ${JSON.stringify(path.join(repo, 'sub', 'up', 'secret.txt'))} (a link to ${target}))`,
      );
      expect((await run('run_shell_command', { command: 'grep -r x .*' }))?.permissionDecision).toBe('ask');
      fs.writeFileSync(path.join(repo, 'a.md'), 'a');
      expect(await run('run_shell_command', { command: 'cat *.md' })).toBeUndefined();
      // A directory that is a link out: every relative word is read there.
      const linked = path.join(repo, 'sub', 'up');
      expect(
        (await run('run_shell_command', { command: 'ls -la', directory: linked })).permissionDecisionReason,
      ).toBe(`${SHELL_OUTSIDE_REASON}${JSON.stringify(linked)} (a link to ${JSON.stringify(dir)})`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the fixed reason when the command moves git', async () => {
    const run = await runRuntime(FILE, { stdin: git('cd vendor/x && git show', undefined), env: {} });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: GIT_MOVED_REASON,
      },
    });
  });

  // A padded tool call arrived slower than the guard's budget on a loaded machine (measured in the
  // e2e), and the guard answered `{}`: YOLO ran it. An event still arriving at the budget now asks.
  it('asks when the event is still arriving at its budget, in any mode', async () => {
    const run = await runRuntime(FILE, {
      stdin: shell('default').slice(0, 40),
      keepStdinOpen: true,
      env: {},
    });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: UNREAD_REASON,
      },
    });
    // The answer is written, then the hook ends itself: the read blocked on the open pipe would hold exit.
    expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
      code: null,
      signal: 'SIGKILL',
      stderr: '',
    });
    expect(run.elapsedMs).toBeLessThan(HOOK_TIMEOUT_MS);
  });

  it('names the tool, escaped, in a fixed reason', async () => {
    const run = await runRuntime(FILE, {
      stdin: event({ permission_mode: 'yolo', tool_name: 'evil\u202etool' }),
      env: {},
    });
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason:
          'This deployment requires confirmation for every tool call, also in yolo mode. Tool: "evil\\u202etool"',
      },
    });
  });
});
