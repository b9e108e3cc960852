// The approval guard on random shell lines built from the words its rules read (every wrapper, tool,
// interpreter and directory option of policies/repository-code.json, cd, operators, quotes): each
// line gets an answer — `{}` or an ask with a reason — and never a throw or a hang. The guard's
// answer is lost when it hangs: Qwen runs the call unasked at its timeout (docs/admin.md). A wrapper
// with nothing after it (`env; cat …`, `nice`, `env -i`) once looped forever in the rule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import POLICY from '../../../../policies/repository-code.json' with { type: 'json' };
import { decideApprovalGuard } from '../../../../src/runtimes/approval-guard/decide.js';
import type { GuardHost } from '../../../../src/runtimes/approval-guard/host.js';
import {
  REPOSITORY_CODE_REASON,
  type RepositoryFiles,
  repositoryCode,
  repositoryCodeRisk,
} from '../../../../src/runtimes/approval-guard/repository-code.js';

const ROOT = '/repo';
// Every file the rule looks for exists, so every tool it knows names something.
const FILES: RepositoryFiles = {
  readText: (p) => (p.endsWith('package.json') ? '{"scripts":{"test":"vitest","lint":"x"}}' : ''),
  executable: () => true,
  isFile: () => true,
  list: () => ['test_a.py', 'a_test.py', 'App.csproj', 'x.sbt'],
};
const HOST: GuardHost = {
  realpath: (p) => p,
  exists: () => true,
  readdir: () => ['a', 'b'],
  home: '/home/u',
  repositoryCode: (line, directory, root) => repositoryCodeRisk(line, directory, root, FILES),
};

const wrapperWords = Object.entries(POLICY.wrappers).flatMap(([name, w]) => [
  name,
  ...((w as { value?: string[] }).value ?? []),
  ...((w as { directory?: string[] }).directory ?? []),
]);
const toolWords = Object.entries(POLICY.tools).flatMap(([name, t]) => [
  name,
  ...((t as { subcommands?: string[] }).subcommands ?? []),
  ...((t as { directory?: string[] }).directory ?? []),
]);
// Each interpreter's options (values, what it loads, code) and find's -exec family with their ends.
const optionWords = POLICY.interpreterOptions.flatMap((o) => [
  ...o.for,
  ...((o as { value?: string[] }).value ?? []),
  ...((o as { loads?: string[] }).loads ?? []),
  ...((o as { code?: string[] }).code ?? []),
  ...((o as { module?: string[] }).module ?? []),
]);
const findWords = Object.values(POLICY.runs.find).flat();
const WORDS = [
  ...new Set([
    ...wrapperWords,
    ...toolWords,
    ...optionWords,
    ...findWords,
    ...['./hook.js', 'test_*.py', '-C$(pwd)', '`pwd`/sub', '$(pwd)/sub'],
    ...POLICY.interpreters,
    ...POLICY.workspaces,
    ...Object.keys(POLICY.modules),
    ...['-S', '--split-string=make', "'make -C sub'", '-C=sub', '--chdir=sub', '-m', '-c', 'X=1', 'X=$PWD'],
    ...['cd', 'pushd', 'popd', 'sub', '..', '/tmp', '"$D"', '$(pwd)', '`ls`', '~', '*', 'sub/*', '--', '-'],
    ...['&&', '||', ';', '|', '&', '(', ')', '{', '}', '<', '>', '2>&1', '#', '\\', '"env"', '\\make'],
    ...['ls', 'cat', '/etc/passwd', 'git', 'commit', 'rg', '--pre', 'find', '-exec', '{}', '\\;', 'test'],
  ]),
];
const line = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 9 }).map((w) => w.join(' ')),
  // Operators glued to words (`env;cat`, `(cd sub;make)`), as a model may write them.
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 9 }).map((w) => w.join('')),
);

describe('the approval guard on random shell lines of the words its rules read', () => {
  it.each<[string, string[]]>([
    // Each looped forever before: the wrapper's options ran to the end of the command.
    ['env', []],
    ['env; cat /tmp/a /tmp/b', []],
    ['env -i', []],
    ['nice', []],
    ['timeout 5', []],
    ['sudo -u root', []],
    ["env -S ''", []],
    ["env -S 'env'", []],
    ['env; npm test', ['package.json scripts.test: vitest']],
  ])('a wrapper with nothing after it runs nothing: %s → %j', (command, named) => {
    expect(repositoryCode(command, ROOT, FILES)).toEqual(named);
  });

  it('answers every line with {} or an ask, in every mode, with or without a directory', () => {
    fc.assert(
      fc.property(
        line,
        fc.constantFrom('default', 'yolo', 'auto_edit', 'plan'),
        fc.constantFrom(undefined, 'sub', '/repo/sub', '/tmp'),
        (command, mode, directory) => {
          const out = decideApprovalGuard(
            {
              hook_event_name: 'PreToolUse',
              tool_name: 'run_shell_command',
              permission_mode: mode,
              cwd: ROOT,
              tool_input: { command, directory },
            },
            new Set(['yolo']),
            HOST,
          );
          if (Object.keys(out).length === 0) return;
          expect(out.hookSpecificOutput?.permissionDecision).toBe('ask');
          expect(typeof out.hookSpecificOutput?.permissionDecisionReason).toBe('string');
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("names repository code under the rule's own reason, never a throw", () => {
    fc.assert(
      fc.property(line, (command) => {
        const named = repositoryCodeRisk(command, undefined, ROOT, FILES);
        if (named !== undefined) expect(named.startsWith(REPOSITORY_CODE_REASON)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
