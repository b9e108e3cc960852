// Which files Qwen 0.24 reads as context and which @-imports it follows, replayed on an in-memory
// tree (measured: scripts/e2e/measure-hostile.ts, section context; docs/repository.md).
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contextFileCandidates,
  contextFileNames,
  findImports,
  importTarget,
} from '../../../src/qwen/context-files.js';

const HOME = '/home/dev';
const QWEN_HOME = '/home/dev/.local/share/qwen-managed/id/write/home';

function candidates(
  cwd: string,
  options: { git?: string[]; present?: string[]; trusted?: boolean; names?: string[] } = {},
) {
  const git = new Set(options.git ?? []);
  const present = new Set(options.present ?? []);
  return contextFileCandidates({
    cwd,
    home: HOME,
    qwenHome: QWEN_HOME,
    names: options.names ?? ['QWEN.md', 'AGENTS.md'],
    trusted: options.trusted ?? true,
    isProjectRoot: (dir) => git.has(dir),
    exists: (file) => present.has(file),
    path: path.posix,
  });
}

describe('contextFileCandidates', () => {
  // [title, cwd, options, the candidates in Qwen's order]
  it.each<[string, string, Parameters<typeof candidates>[1], string[]]>([
    [
      'a git repository: the QWEN_HOME file, the repository and its parent (the stop is the parent of the project root), then QWEN.local.md and the output-language rule',
      '/srv/repos/app',
      { git: ['/srv/repos/app'], names: ['QWEN.md'] },
      [
        `${QWEN_HOME}/QWEN.md`,
        '/srv/repos/QWEN.md',
        '/srv/repos/app/QWEN.md',
        '/srv/repos/app/.qwen/QWEN.local.md',
        `${QWEN_HOME}/output-language.md`,
      ],
    ],
    [
      'no .git anywhere: up to the parent of HOME, or to / (not itself) when the repository is elsewhere; no QWEN.local.md',
      '/srv/repos/app',
      { names: ['QWEN.md'] },
      [
        `${QWEN_HOME}/QWEN.md`,
        '/srv/QWEN.md',
        '/srv/repos/QWEN.md',
        '/srv/repos/app/QWEN.md',
        `${QWEN_HOME}/output-language.md`,
      ],
    ],
    [
      'a repository below HOME without .git: the walk passes HOME and stops at its parent',
      '/home/dev/src/app',
      { names: ['AGENTS.md'] },
      [
        `${QWEN_HOME}/AGENTS.md`,
        '/home/AGENTS.md',
        '/home/dev/AGENTS.md',
        '/home/dev/src/AGENTS.md',
        '/home/dev/src/app/AGENTS.md',
        `${QWEN_HOME}/output-language.md`,
      ],
    ],
    [
      'the repository is HOME: only the home file',
      HOME,
      { names: ['QWEN.md'] },
      [`${QWEN_HOME}/QWEN.md`, '/home/dev/QWEN.md', `${QWEN_HOME}/output-language.md`],
    ],
    [
      'the project output-language rule replaces the user’s when it exists',
      '/srv/app',
      { git: ['/srv/app'], names: ['QWEN.md'], present: ['/srv/app/.qwen/output-language.md'] },
      [
        `${QWEN_HOME}/QWEN.md`,

        '/srv/QWEN.md',
        '/srv/app/QWEN.md',
        '/srv/app/.qwen/QWEN.local.md',
        '/srv/app/.qwen/output-language.md',
      ],
    ],
    [
      'an untrusted folder: the output-language rule only (Qwen reads it whatever the trust)',
      '/srv/app',
      { trusted: false, present: ['/srv/app/.qwen/output-language.md'] },
      ['/srv/app/.qwen/output-language.md'],
    ],
  ])('%s', (_title, cwd, options, expected) => {
    expect(candidates(cwd, options)).toEqual(expected);
  });
});

describe('contextFileNames', () => {
  it.each<[unknown, string[]]>([
    [undefined, ['QWEN.md', 'AGENTS.md']],
    [' CONTEXT.md ', ['CONTEXT.md']],
    ['', ['QWEN.md', 'AGENTS.md']],
    [
      ['QWEN.md', ' docs/AI.md'],
      ['QWEN.md', 'docs/AI.md'],
    ],
    [[], ['QWEN.md', 'AGENTS.md']],
  ])('%j → %j', (setting, names) => {
    expect(contextFileNames(setting)).toEqual(names);
  });
});

describe('findImports (a superset of what Qwen follows: code spans are not excluded)', () => {
  it.each<[string, string[]]>([
    ['See @./docs/a.md and @b.md.', ['./docs/a.md', 'b.md.']],
    ['@/abs/path at the start', ['/abs/path']],
    ['mail me@example.com, not an import', []],
    ['@@double, @1digit, @-dash, @_under', []],
    ['tabs\t@x\nnewline @y\r\n', ['x', 'y']],
    ['```\n@./in-a-code-block.md\n```', ['./in-a-code-block.md']],
    ['npm i @types/node', ['types/node']],
  ])('%j', (text, found) => {
    expect(findImports(text)).toEqual(found);
  });
});

describe('importTarget: what Qwen follows', () => {
  it.each<[string, string, string, string | undefined]>([
    ['./notes.md', '/srv/app/QWEN.md', '/srv/app', '/srv/app/notes.md'],
    ['../docs/x.md', '/srv/app/sub/QWEN.md', '/srv/app', '/srv/app/docs/x.md'],
    ['../secret.md', '/srv/app/QWEN.md', '/srv/app', undefined],
    ['/proc/self/environ', '/srv/app/QWEN.md', '/srv/app', undefined],
    ['../secret.md', '/srv/app/QWEN.md', '/srv', '/srv/secret.md'],
    ['https://example.com/x', '/srv/app/QWEN.md', '/srv/app', undefined],
    ['file:///etc/passwd', '/srv/app/QWEN.md', '/srv/app', undefined],
  ])('%s from %s (project root %s)', (importPath, from, root, target) => {
    expect(importTarget(importPath, from, root, path.posix)).toBe(target);
  });
});
