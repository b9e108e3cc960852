// The approval guard's shell-path rule against Qwen 0.24.4's own read-only classifier (the bundled
// isShellCommandReadOnlyASTInDirectory, tree-sitter and all, plus its substitution check): every
// line that reads a file outside the repository and that Qwen would run with no dialog must get the
// guard's ask — spelt absolute, with `~`, `..`, quotes, escapes, `$'…'`, braces, globs, variables,
// through an untracked link or a glob bash expands through one, after a `cd`, behind separators, redirections, comments and groups.
// Lines that stay inside the repository get no ask (a second dialog nobody needs).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listNames,
  pathMayExist,
  realpathNearestExisting,
} from '../../src/runtimes/approval-guard/approval-guard.js';
import { decideApprovalGuard, type GuardHost } from '../../src/runtimes/approval-guard/decide.js';
import { ensureE2eToolchain, qwenPackageDir } from './harness/paths.js';

let dir: string;
let repo: string;
let host: GuardHost;

/** Which of `commands` Qwen runs with no dialog in its default mode, run in `cwd`. */
function qwenRunsSilently(commands: readonly string[], cwd: string): boolean[] {
  const { node22 } = ensureE2eToolchain();
  const chunks = path.join(qwenPackageDir, 'chunks');
  const exporting = (name: string) =>
    fs
      .readdirSync(chunks)
      .map((f) => path.join(chunks, f))
      .find((f) => new RegExp(`^export \\{[^}]*\\b${name},`, 'm').test(fs.readFileSync(f, 'utf8')));
  const classifier = exporting('isShellCommandReadOnlyASTInDirectory');
  const shell = exporting('hasShellSubstitution');
  expect(classifier, "Qwen's classifier chunk").toBeDefined();
  expect(shell, "Qwen's shell-utility chunk").toBeDefined();
  const script = path.join(dir, 'classify.mjs');
  fs.writeFileSync(
    script,
    `const m = await import(${JSON.stringify(classifier)});
const u = await import(${JSON.stringify(shell)});
const commands = JSON.parse((await import('node:fs')).readFileSync(process.argv[2], 'utf8'));
const out = [];
// ShellToolInvocation.getDefaultPermission: a substitution asks; else the unwrapped line's class.
for (const c of commands)
  out.push(!u.hasShellSubstitution(c) && (await m.isShellCommandReadOnlyASTInDirectory(u.stripShellWrapper(c), ${JSON.stringify(cwd)})));
console.log(JSON.stringify(out));`,
  );
  fs.writeFileSync(path.join(dir, 'commands.json'), JSON.stringify(commands));
  const out = execFileSync(node22, [script, path.join(dir, 'commands.json')], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString()) as boolean[];
}

const asks = (command: string) =>
  decideApprovalGuard(
    {
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'run_shell_command',
      tool_input: { command },
      cwd: repo,
    },
    new Set(['yolo']),
    host,
  ).hookSpecificOutput?.permissionDecision === 'ask';

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'guard-differential-')));
  repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  // Untracked links out of the repository (there is no git here at all).
  fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(repo, 'notes'));
  fs.symlinkSync(dir, path.join(repo, 'sub', 'up'));
  host = { realpath: realpathNearestExisting, exists: pathMayExist, home: dir, readdir: listNames };
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the shell-path rule against Qwen 0.24.4's classifier", () => {
  it('asks before every line that reads outside and that Qwen runs with no dialog', () => {
    const secret = path.join(dir, 'secret.txt');
    const spellings = [
      secret,
      '~/secret.txt',
      '../secret.txt',
      'notes',
      './notes',
      'sub/up/secret.txt',
      `"${dir}/"secret.txt`,
      `'${secret}'`,
      `\\${secret}`,
      `${dir}//secret.txt`,
      `${secret.slice(0, -1)}?`,
      `${dir}/s*`,
      '~/secret.tx[t]',
      '{a.txt,../secret.txt}',
      '$HOME/secret.txt',
      '${HOME}/secret.txt',
      '"$HOME"/secret.txt',
      `$'\\x2f${secret.slice(1)}'`,
      '~/"secret.txt"',
      '.././secret.txt',
      'sub/../../secret.txt',
      `${repo}/../secret.txt`,
      'su""b/up/secret.txt',
      'no""tes',
      'sub/up/*',
      'sub/*/secret.txt',
      '*/u?/secret.txt',
      'n?tes',
      'sub/[[:alpha:]]p/secret.txt',
      '~+/../secret.txt',
    ];
    const readers = [
      'cat',
      'head -n 5',
      'tail',
      'grep -r s',
      'grep -e s',
      'grep -rex',
      'grep --regexp=s',
      'grep -- s',
      'grep -f',
      'rg s',
      'rg --files',
      'rg --file',
      'sort',
      'uniq',
      'wc -c',
      'ls -la',
      'cut -c1-9',
      'awk 1',
      'awk -f',
      'sed -n p',
      'sed -e p',
      'find',
      'stat',
      'du',
      'tree',
      'column',
      'git diff --no-index a.txt',
    ];
    const wraps: ((line: string) => string)[] = [
      (c) => c,
      (c) => `ls; ${c}`,
      (c) => `${c} | head`,
      (c) => `{ ${c}; }`,
      (c) => `(${c})`,
      (c) => `${c} 2>&1`,
      (c) => `true && ${c}`,
      (c) => `echo x # ; npm\n${c}`,
      (c) => `! ${c}`,
      (c) => `${c} >&2`,
      (c) => `${c} <&0`,
      (c) => `time ${c}`,
      (c) => `cat a.txt\\;x ${c.split(' ').slice(1).join(' ')}`,
    ];
    const lines = [
      ...readers.flatMap((r) => spellings.flatMap((p) => wraps.map((w) => w(`${r} ${p}`)))),
      'cat <~/secret.txt',
      'cat 0<~/secret.txt',
      '2>/dev/null cat ~/secret.txt',
      'cat a.txt 2>/dev/null ~/secret.txt',
      'cd; cat secret.txt',
      'cd ~ && cat secret.txt',
      'cd sub/up && cat secret.txt',
      'cd .. ; cat secret.txt',
      'cd sub && cat up/secret.txt',
      'cat -- ~/secret.txt',
      'head -c 9 -- ../secret.txt',
      // Through a linked directory met while walking.
      'grep -R secret .',
      'grep -rnR secret sub',
      'rg -L secret',
      'rg --follow secret sub',
      'find -L . -name secret.txt',
      'find sub -follow -name secret.txt',
      'tree -l sub',
    ];
    const silent = qwenRunsSilently(lines, repo);
    const unasked = lines.filter((line, i) => silent[i] && !asks(line));
    // Most of them are silent to Qwen: the rule has something to do.
    expect(silent.filter(Boolean).length).toBeGreaterThan(lines.length / 2);
    expect(unasked).toEqual([]);
  });

  it('asks before none of the everyday lines that stay in the repository', () => {
    const lines = [
      'ls -la',
      'cat a.txt',
      'grep -rn "foo|bar" . | head -20',
      "grep -rn '/usr/bin' sub",
      "rg -n 'https://' .",
      "sed -n '/^## /p' a.txt",
      "awk -F: '{print $1}' a.txt",
      'find . -name "*.ts" -not -path "./node_modules/*" | head -50',
      'wc -l sub/*.txt a.txt',
      'cd sub && ls',
      `cat ${repo}/a.txt`,
      'git log --oneline -n 5',
      'echo $PATH',
      'cat a.txt | sort | uniq -c | sort -rn | head',
      'du -sh . && stat a.txt && tree -L 2',
      'ls no-such-dir 2>/dev/null',
      'cat *.txt',
      'cat /no-such-place/x',
    ];
    const silent = qwenRunsSilently(lines, repo);
    expect(lines.filter((line, i) => silent[i] && asks(line))).toEqual([]);
  });
});
