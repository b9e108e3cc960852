// The launcher's reading of a git configuration against git's own (docs/repository.md#git): over a
// corpus of adversarial files and seeded mutations of them, whatever git reads without an error the
// launcher reads the same — or refuses the whole file — and every key with which git would run a
// program the repository names is refused.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decideGitConfig,
  GIT_CONFIG_POLICY,
  type GitConfigEntry,
  gitConfigKey,
  matchingPattern,
  parseGitConfig,
} from '../../../src/policy/git-config.js';
import { gitScratch } from '../../fixtures/git-scratch.js';

const { base, env: ENV } = gitScratch('qm-git-config-');

/** What git reads from the file (key, and value unless a bare key), or undefined when git refuses it. */
function gitReads(text: string): Array<[string, string | undefined]> | undefined {
  const file = path.join(base, 'config');
  fs.writeFileSync(file, Buffer.from(text, 'latin1'));
  const run = spawnSync('git', ['config', '--file', file, '--null', '--list'], { env: ENV });
  if (run.status !== 0) return undefined;
  // --null: `key\nvalue\0`, or `key\0` for a bare key (a key holds no newline, a value may).
  return run.stdout
    .toString('utf8')
    .split('\0')
    .slice(0, -1)
    .map((e) => {
      const nl = e.indexOf('\n');
      return nl < 0 ? [e, undefined] : [e.slice(0, nl), e.slice(nl + 1)];
    });
}

function launcherReads(text: string): Array<[string, string | undefined]> | undefined {
  const parsed = parseGitConfig(Buffer.from(text, 'latin1').toString('utf8'));
  if ('error' in parsed) return undefined;
  return parsed.entries.map((e) => [gitConfigKey(e), e.value]);
}

/** git's own split of a key (parse_config_key): section, the middle as subsection, the last part. */
function asEntry([key, value]: [string, string | undefined]): GitConfigEntry {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return {
    section: key.slice(0, first),
    subsection: first === last ? undefined : key.slice(first + 1, last),
    name: key.slice(last + 1),
    value,
  };
}

/** True when git, reading `pairs`, would run a program the repository names (per the policy). */
function gitRuns(pairs: Array<[string, string | undefined]>): boolean {
  return pairs.some((pair) => {
    const entry = asEntry(pair);
    const pattern = matchingPattern(entry);
    if (pattern === undefined) return false;
    const value = (entry.value ?? 'true').toLowerCase();
    return !GIT_CONFIG_POLICY.keys[pattern]!.harmless?.some((h) => h.toLowerCase() === value);
  });
}

const CORPUS = [
  '[core]\n\tfsmonitor = ./x\n',
  '[filter "evil"]\n\tclean = ./p %f\n',
  '[FILTER "Evil"]\n\tCLEAN = ./p\n',
  '[filter.Evil]\nclean=a\n',
  '[filter.a.b]\nclean=a\n',
  '[filter.]\nclean=a\n',
  '[diff "x"] textconv = cat\n',
  '[core]\n\tpager = "less -R" # c\n',
  '[core]\n\tsshCommand = ssh \\\n -v\n',
  '[core]\r\n\tsshCommand = ssh \\\r\n -v\r\n',
  '[include]\n\tpath = x\n',
  '[includeIf "gitdir:/"]\n\tpath = x\n',
  '[core]\n\tfsmonitor = true\n',
  '[core]\n\tfsmonitor\n',
  '[core]\n\tfsmonitor =\n',
  '[core]\n\tfsmonitor = ./x\n\tfsmonitor =\n',
  '[core]\n\tfsmonitor = "true "\n',
  '[core]\n\tfsmonitor =\\\n false\n',
  '[core]\n\tfsmonitor = "" false\n',
  '[core]\n\tfsmonitor = tr\rue\n',
  '[core]\n\tfsmonitor = tr\tue\n',
  '[core]\n\tfsmonitor = true\0; ./evil\n',
  '[core "fsmonitor\0"]\n\tx = ./evil\n',
  '[filter "evil.clean\0"]\n\ty = touch MARK\n',
  '[include "path\0"]\n\tx = ../evil\n',
  '\xef\xbb\xbf[core]\n\tfsmonitor = ./x\n',
  '[core]\n\tfsmonitor = ./x ; c\n\tpager = a#b\n',
  '[core]\n\tfsmonitor = "./x ; c"\n',
  '[core]\n\tfsmonitor = \\"./x\n',
  '[core]\n\tfsmonitor\t=\t./x\t\n',
  '[core]\tfsmonitor = ./x\n',
  '[core] fsmonitor\n',
  '[filter\t"evil"]\n\tclean = ./p\n',
  '[filter \t "e\\v\\"il"]\n\tclean = ./p\n',
  '[filter "evil"]\n\tclean = ./p\n[filter "evil"]\n\tclean = git-lfs clean -- %f\n',
  '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n',
  '[filter "lfs"]\n\tclean = "git-lfs clean -- %f\\t"\n',
  '[core]\n\thooksPath = .husky\n',
  '[filter\t "a.clean="]\nx = ./p\n',
  `[core]\n\tpager = ${'x'.repeat(70_000)}\n`,
];

function mutations(count: number): string[] {
  // A fixed seed: the same corpus every run.
  let seed = 12345;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = [
    ' ',
    '\t',
    '\r',
    '\n',
    '\r\n',
    '"',
    '\\',
    '#',
    ';',
    '\0',
    '.',
    '[',
    ']',
    '=',
    '\f',
    '\v',
    'A',
  ];
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    let text = CORPUS[random(CORPUS.length - 1)]!;
    for (let j = 1 + random(3); j > 0; j--) {
      const at = random(text.length + 1);
      const piece = pieces[random(pieces.length)]!;
      const op = random(3);
      text = text.slice(0, at) + (op === 1 ? '' : piece) + text.slice(op === 0 ? at : at + 1);
    }
    out.push(text);
  }
  return out;
}

describe('the launcher reads a git configuration as git 2.39 does', () => {
  const cases = [...CORPUS, ...mutations(500)];

  it('the same entries as git, or an error; a refusal whenever git would run a program', () => {
    type Pairs = Array<[string, string | undefined]>;
    const differ: Array<{ text: string; git: Pairs; launcher: Pairs }> = [];
    const missed: Array<{ text: string; git: Pairs }> = [];
    for (const text of cases) {
      const git = gitReads(text);
      if (git === undefined) continue;
      const launcher = launcherReads(text);
      if (launcher !== undefined && JSON.stringify(launcher) !== JSON.stringify(git))
        differ.push({ text, git, launcher });
      if (gitRuns(git) && decideGitConfig('f', Buffer.from(text, 'latin1').toString('utf8')).length === 0)
        missed.push({ text, git });
    }
    expect({ differ, missed }).toEqual({ differ: [], missed: [] });
  });

  // The negative control: the real git runs the clean filter a NUL byte hides in a subsection.
  it('a NUL byte in a subsection: git status runs the filter; the launcher refuses the file', () => {
    const repo = path.join(base, 'nul');
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: ENV });
    execFileSync('git', ['init', '-q', repo], { env: ENV });
    fs.writeFileSync(path.join(repo, '.gitattributes'), '* filter=evil\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'a');
    const text = '[filter "evil.clean\0"]\n\tx = touch MARK; cat\n';
    fs.appendFileSync(path.join(repo, '.git', 'config'), Buffer.from(text, 'latin1'));
    fs.writeFileSync(path.join(repo, 'a.txt'), 'b\n');
    git('status', '--short');
    expect(fs.existsSync(path.join(repo, 'MARK'))).toBe(true);
    expect(decideGitConfig('config', text).map((r) => r.key)).toEqual(['(line 1)']);
  });
});

describe('core.fsmonitor: a boolean to git, or a command it runs', () => {
  // git runs the value as a command exactly when it is no boolean (git_parse_maybe_bool): then it
  // says it cannot run it. The launcher refuses exactly those.
  it('the launcher refuses exactly the values git runs', () => {
    const repo = path.join(base, 'fsmonitor');
    execFileSync('git', ['init', '-q', repo], { env: ENV });
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    execFileSync('git', ['-C', repo, 'add', '.'], { env: ENV });
    const values = [
      'true',
      'YES',
      'off',
      '',
      '2',
      '0x1F',
      '1k',
      ' -7',
      '010',
      '1G',
      '2147483647',
      '-2147483647',
    ].concat(['2g', '08', '2147483648', '-2147483648', '0x', 'true ', 'tru', 'nope']);
    const verdicts = values.map((v) => {
      fs.utimesSync(path.join(repo, 'a.txt'), 1e9, 1e9);
      const run = spawnSync('git', ['-C', repo, '-c', `core.fsmonitor=${v}`, 'diff'], { env: ENV });
      const gitRunsIt = /cannot run|Empty last update token/.test(run.stderr.toString());
      const refused = decideGitConfig('config', `[core]\n\tfsmonitor = "${v}"\n`).length > 0;
      return { value: v, gitRunsIt, refused };
    });
    expect(verdicts.filter((v) => v.gitRunsIt !== v.refused)).toEqual([]);
    expect(verdicts.filter((v) => v.gitRunsIt).map((v) => v.value)).toEqual(values.slice(12));
  });
});
