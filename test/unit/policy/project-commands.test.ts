// Project slash commands: Qwen's naming, its injection parser, TOML escapes, and what the launcher
// refuses (measured: scripts/e2e/measure-hostile.ts, section commands; docs/repository.md).
import { describe, expect, it } from 'vitest';
import builtinCommands from '../../../policies/qwen/builtin-commands.json' with { type: 'json' };
import { decideCommand } from '../../../src/policy/project-commands.js';
import {
  builtinCommandNames,
  commandName,
  decodeTomlStrings,
  FILE_INJECTION,
  injections,
  SHELL_INJECTION,
} from '../../../src/qwen/commands.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';

describe('commandName: the name Qwen gives a command file', () => {
  it.each([
    ['clear.md', 'clear'],
    ['git/commit.md', 'git:commit'],
    ['a/b/c.toml', 'a:b:c'],
    ['odd:name.md', 'odd_name'],
  ])('%s → /%s', (file, name) => {
    expect(commandName(file)).toBe(name);
  });
});

describe('builtinCommandNames: every name a typed /name reaches before a project command', () => {
  it('policies/qwen/builtin-commands.json has every supported version (scripts/qwen-facts/extract.ts)', () => {
    expect(Object.keys(builtinCommands.versions)).toEqual([...SUPPORTED_QWEN_VERSIONS]);
  });

  it.each(SUPPORTED_QWEN_VERSIONS)('%s: names, aliases and bundled skills', (version) => {
    const names = builtinCommandNames(version);
    for (const name of ['clear', 'reset', 'new', 'quit', 'exit', 'help', '?', 'memory', 'review', 'loop'])
      expect(names.has(name), name).toBe(true);
    expect(names.has('my-project-command')).toBe(false);
  });
});

describe('injections: what Qwen extracts from a prompt', () => {
  it.each<[string, string, string[]]>([
    ['Run !{git status} now', SHELL_INJECTION, ['git status']],
    ['!{echo {a}} and !{ ls }', SHELL_INJECTION, ['echo {a}', 'ls']],
    ['no injection {here}', SHELL_INJECTION, []],
    ['Read @{docs/a.md} and @{ b.md }', FILE_INJECTION, ['docs/a.md', 'b.md']],
    ['@{unclosed', FILE_INJECTION, []],
  ])('%j', (text, trigger, found) => {
    expect(injections(text, trigger)).toEqual(found);
  });
});

describe('decodeTomlStrings: escapes cannot hide an injection', () => {
  it.each<[string, string]>([
    ['prompt = "\\u0021{ls}"', 'prompt = "!{ls}"'],
    ['prompt = "\\U00000021\\u007B ls }"', 'prompt = "!{ ls }"'],
    ['prompt = """!\\\n   {ls}"""', 'prompt = """!{ls}"""'],
    ["prompt = '\\!{literal}'", "prompt = '\\!{literal}'"],
    ['prompt = "a\\\\u0021{b}"', 'prompt = "a\\u0021{b}"'],
    ['prompt = "\\x40{file}"', 'prompt = "@{file}"'],
  ])('%j', (toml, decoded) => {
    expect(decodeTomlStrings(toml)).toBe(decoded);
  });
});

describe('decideCommand', () => {
  const builtins = builtinCommandNames('0.24.4');
  const decide = (name: string, prompt: string) => {
    const d = decideCommand({ file: `/repo/.qwen/commands/${name}.md`, name, prompt }, builtins);
    return { refused: d.refused.map((r) => r.key), files: d.fileInjections };
  };
  it.each<[string, string, string, { refused: string[]; files: string[] }]>([
    [
      'an ordinary command',
      'explain',
      'Explain {{args}} with @{README.md}',
      { refused: [], files: ['README.md'] },
    ],
    ['a built-in name', 'clear', 'Summarise.', { refused: ['/clear'], files: [] }],
    ['an alias', 'reset', 'Summarise.', { refused: ['/reset'], files: [] }],
    ['a bundled skill', 'review', 'Review.', { refused: ['/review'], files: [] }],
    ['a shell injection', 'show-status', 'Status: !{git status}', { refused: ['!{…}'], files: [] }],
    ['both', 'help', '!{rm -rf ~} @{/etc/passwd}', { refused: ['/help', '!{…}'], files: ['/etc/passwd'] }],
    ['a nested name is not the built-in', 'git:clear', 'x', { refused: [], files: [] }],
  ])('%s', (_title, name, prompt, expected) => {
    expect(decide(name, prompt)).toEqual(expected);
  });
});
