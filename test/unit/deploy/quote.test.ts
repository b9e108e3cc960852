import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hookCommand } from '../../../src/deploy/render/commands.js';
import { pinnedPathProblem, posixQuote, powershellQuote } from '../../../src/policy/quote.js';
import { tempDir } from './fixtures.js';

/** Every argument as bash sees it after `bash -c '<quoted args>'`, NUL-separated by printf. */
function bashWords(words: readonly string[]): string[] {
  const script = `printf '%s\\0' ${words.map(posixQuote).join(' ')}`;
  const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: {} });
  expect(result.status).toBe(0);
  return result.stdout.split('\0').slice(0, -1);
}

// Strings a path could hold (no NUL: no argv can carry one), weighted towards shell metacharacters.
const hostile = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      "'",
      '"',
      '\\',
      '$',
      '`',
      ' ',
      '\t',
      '\n',
      '!',
      '*',
      '?',
      '[',
      ']',
      '{',
      '}',
      ';',
      '&',
      '|',
      '<',
      '>',
      '(',
      ')',
      '#',
      '~',
      '=',
      '%',
      'é',
      '日',
      '😀',
      '\u2019',
      'a',
    ),
  }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }).map((s) => s.replaceAll('\u0000', '')),
);

describe('posixQuote survives bash -c exactly', () => {
  it('for arbitrary hostile strings (property, 200 samples in batches)', () => {
    fc.assert(
      fc.property(fc.array(hostile, { minLength: 1, maxLength: 20 }), (words) => {
        expect(bashWords(words)).toEqual(words);
      }),
      { numRuns: 10 },
    );
  });

  it.each([
    ["it's", `'it'\\''s'`],
    ['a b', `'a b'`],
    ['$HOME', `'$HOME'`],
    ['back\\slash', `'back\\slash'`],
    ['', `''`],
  ])('%j → %s', (input, quoted) => {
    expect(posixQuote(input)).toBe(quoted);
    expect(bashWords([input])).toEqual([input]);
  });
});

describe('hook commands run the pinned node on the pinned runtime, whatever the path holds', () => {
  // Directory names an administrator might really have: spaces, quotes, backslashes, unicode.
  const names = [
    'Program Files',
    "it's here",
    'back\\slash',
    'quote"d',
    'ünïcødé 日本',
    'semi;colon & amp',
    'star*?[x]',
  ];

  it.each(names)('a tree under %j', async (name) => {
    const root = path.join(await tempDir(), name);
    await fs.mkdir(path.join(root, 'bin'), { recursive: true });
    const node = path.join(root, 'bin', 'node');
    // A stand-in "node" that prints its argv, one per line, NUL-terminated.
    await fs.writeFile(node, '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done\n', { mode: 0o755 });
    const script = path.join(root, 'runtime', 'auto-recall.js');
    expect(pinnedPathProblem(node, 'posix')).toBeUndefined();
    const command = hookCommand('posix', node, script);
    expect(command.startsWith('exec ')).toBe(true);
    // As Qwen runs command hooks on POSIX: bash -c <command>.
    const result = spawnSync('bash', ['-c', command], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(result.status).toBe(0);
    expect(result.stdout.split('\0').slice(0, -1)).toEqual([script]);
  });
});

/**
 * A small reference tokenizer for PowerShell single-quoted string literals, following the language
 * specification (§2.3.5.2): the four single-quote characters ' ‘ ’ ‚ ‛ (U+0027, U+2018, U+2019,
 * U+201A, U+201B) all delimit; inside, two consecutive quote characters stand for the second one.
 * Returns the literal's value and where it ended.
 */
function parsePowerShellSingleQuoted(source: string, start: number): { value: string; end: number } {
  const isQuote = (c: string | undefined) => c !== undefined && /['\u2018\u2019\u201a\u201b]/u.test(c);
  if (!isQuote(source[start])) throw new Error('not a single-quoted literal');
  let value = '';
  let i = start + 1;
  for (;;) {
    const c = source[i];
    if (c === undefined) throw new Error('unterminated literal');
    if (isQuote(c)) {
      if (isQuote(source[i + 1])) {
        value += source[i + 1];
        i += 2;
        continue;
      }
      return { value, end: i + 1 };
    }
    value += c;
    i++;
  }
}

/** `& 'a' 'b'` → ['a', 'b'], checking the command is exactly a call of two literals. */
function parseHookCall(command: string): string[] {
  if (!command.startsWith('& ')) throw new Error('not a call');
  const first = parsePowerShellSingleQuoted(command, 2);
  if (command[first.end] !== ' ') throw new Error('expected a space');
  const second = parsePowerShellSingleQuoted(command, first.end + 1);
  if (second.end !== command.length) throw new Error('trailing text after the second literal');
  return [first.value, second.value];
}

describe('powershellQuote', () => {
  it.each([
    ['C:\\Program Files\\nodejs\\node.exe', `'C:\\Program Files\\nodejs\\node.exe'`],
    ["C:\\it's", `'C:\\it''s'`],
    ['C:\\a\u2019b', `'C:\\a\u2019\u2019b'`],
    ['C:\\a\u2018\u201a\u201bb', `'C:\\a\u2018\u2018\u201a\u201a\u201b\u201bb'`],
    ['$env:PATH `n "x"', `'$env:PATH \`n "x"'`],
    ['', `''`],
  ])('%j → %s (table of known-correct literals)', (input, quoted) => {
    expect(powershellQuote(input)).toBe(quoted);
    expect(parsePowerShellSingleQuoted(quoted, 0)).toEqual({ value: input, end: quoted.length });
  });

  it('round-trips any string through the reference tokenizer, ending exactly at the closing quote', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const quoted = powershellQuote(s);
        expect(parsePowerShellSingleQuoted(quoted, 0)).toEqual({ value: s, end: quoted.length });
      }),
      { numRuns: 2000 },
    );
  });

  it('builds Windows hook commands that are exactly a call of the pinned node on the runtime', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        const node = `C:\\${a}\\node.exe`;
        const script = `C:\\${b}\\runtime\\auto-recall.js`;
        expect(parseHookCall(hookCommand('windows', node, script))).toEqual([node, script]);
      }),
      { numRuns: 1000 },
    );
  });

  it('the reference tokenizer rejects the unsafe naive quoting it is meant to catch', () => {
    const naive = (s: string) => `'${s}'`;
    expect(() => parseHookCall(`& ${naive("C:\\it's")} 'x'`)).toThrow();
  });
});

describe('pinnedPathProblem refuses what quoting cannot protect', () => {
  it.each([
    ['/opt/$HOME/node', 'dollar'],
    ['/opt/${X}/node', 'dollar'],
    ['/opt/a\nb', 'control'],
    ['/opt/a\u0000b', 'control'],
    ['/opt/a\u2028b', 'control'],
    ['/opt/a\u007fb', 'control'],
    ['relative/node', 'not-absolute'],
    ['', 'empty'],
  ] as const)('%j → %s', (p, problem) => {
    expect(pinnedPathProblem(p, 'posix')).toBe(problem);
  });
});
