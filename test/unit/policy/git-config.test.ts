// The repository's git configuration: which keys make git run a program the repository names.
import { describe, expect, it } from 'vitest';
import {
  decideGitConfig,
  decideGitHook,
  gitConfigKey,
  gitPathElsewhere,
  parseGitConfig,
} from '../../../src/policy/git-config.js';

const FILE = '/repo/.git/config';
const keysOf = (text: string) => decideGitConfig(FILE, text).map((r) => r.key);

describe('parseGitConfig', () => {
  // [title, text, the entries as `key=value` (a bare key without "=")]
  it.each<[string, string, string[]]>([
    [
      'sections, subsections, bare keys',
      '[core]\n\tbare = false\n\tfsmonitor\n[remote "origin"]\n\turl = x\n',
      ['core.bare=false', 'core.fsmonitor', 'remote.origin.url=x'],
    ],
    [
      'names are case-insensitive, a quoted subsection is not',
      '[Filter "EVIL"]\n\tClean = a\n',
      ['filter.EVIL.clean=a'],
    ],
    ['the old dotted form lowercases its subsection', '[filter.EVIL]\nclean = a\n', ['filter.evil.clean=a']],
    ['a key on the header line', '[diff "x"] textconv = cat\n', ['diff.x.textconv=cat']],
    [
      'comments, quotes, escapes',
      '# c\n[core] ; c\n\tpager = "less -R" # c\n\teditor = "a;b"\\t\n',
      ['core.pager=less -R', 'core.editor=a;b\t'],
    ],
    ['a continuation line', '[core]\n\tsshCommand = ssh \\\n -v\n', ['core.sshcommand=ssh  -v']],
    ['an escaped quote in a subsection', '[diff "a\\"b"]\ncommand = x\n', ['diff.a"b.command=x']],
    // git hands values on as C strings, and writes a space for each unquoted blank (git 2.39).
    ['a value ends at a NUL byte', '[core]\n\tfsmonitor = true\0; ./p\n', ['core.fsmonitor=true']],
    [
      'an unquoted tab or lone CR inside a value is a space',
      '[core]\n\tpager = a\tb\rc\n',
      ['core.pager=a b c'],
    ],
  ])('%s', (_title, text, entries) => {
    const parsed = parseGitConfig(text);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(
      parsed.entries.map((e) => (e.value === undefined ? gitConfigKey(e) : `${gitConfigKey(e)}=${e.value}`)),
    ).toEqual(entries);
  });

  // [title, text, line]
  it.each<[string, string, number]>([
    ['a key before any section', 'x = 1\n', 1],
    ['an unterminated header', '[core\n', 1],
    ['an unterminated quote', '[core]\npager = "less\n', 2],
    ['a stray character', '[core]\n\t=1\n', 2],
    ['an invalid escape', '[core]\n\tpager = a\\qb\n', 2],
    // git reads `[core "fsmonitor\0"] x = …` as core.fsmonitor (its key is a C string).
    ['a NUL byte in a subsection', '[core]\n[core "fsmonitor\0"]\n\tx = ./p\n', 2],
  ])('%s is an error, as for git', (_title, text, line) => {
    expect(parseGitConfig(text)).toMatchObject({ line });
  });
});

describe('decideGitConfig', () => {
  // [title, configuration, the keys refused]
  it.each<[string, string, string[]]>([
    [
      "every program a hostile repository names (the e2e probe's configuration)",
      `[core]
	fsmonitor = ./p fsmonitor
	pager = ./p pager
	editor = ./p editor
	sshCommand = ./p ssh
	askPass = ./p askpass
	gitProxy = ./p proxy
[diff "tc"]
	textconv = ./p textconv
[diff "cmd"]
	command = ./p diff
[diff]
	external = ./p external
[filter "evil"]
	clean = ./p clean
	smudge = ./p smudge
	process = ./p process
[credential]
	helper = !./p credential
[credential "https://x"]
	helper = ./p
[gpg]
	program = ./p
[gpg "ssh"]
	program = ./p
[pager]
	log = ./p
[remote "origin"]
	url = ssh://example.invalid/x
	uploadpack = ./p
[protocol "ext"]
	allow = always
[merge "m"]
	driver = ./p
[include]
	path = ../elsewhere
[includeIf "gitdir:/"]
	path = x
[submodule "s"]
	update = !./p
`,
      [
        'core.fsmonitor',
        'core.pager',
        'core.editor',
        'core.sshcommand',
        'core.askpass',
        'core.gitproxy',
        'diff.tc.textconv',
        'diff.cmd.command',
        'diff.external',
        'filter.evil.clean',
        'filter.evil.smudge',
        'filter.evil.process',
        'credential.helper',
        'credential.https://x.helper',
        'gpg.program',
        'gpg.ssh.program',
        'pager.log',
        'remote.origin.uploadpack',
        'protocol.ext.allow',
        'merge.m.driver',
        'include.path',
        'includeif.gitdir:/.path',
      ].concat(['submodule.s.update']),
    ],
    [
      "what a developer's own repository holds: nothing refused",
      `[core]
	repositoryformatversion = 0
	filemode = true
	bare = false
	logallrefupdates = true
	fsmonitor = true
	hooksPath = .husky/_
[remote "origin"]
	url = git@github.com:org/app.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[branch "main"]
	remote = origin
	merge = refs/heads/main
[pager]
	branch = false
[filter "lfs"]
	clean = git-lfs clean -- %f
	smudge = git-lfs smudge -- %f
	process = git-lfs filter-process
	required = true
[submodule "lib"]
	update = rebase
[protocol "ext"]
	allow = never
[user]
	signingkey = ABC
`,
      [],
    ],
    [
      'a key written twice is named once',
      '[diff "x"]\ntextconv = a\n[diff "x"]\ntextconv = b\n',
      ['diff.x.textconv'],
    ],
    [
      "git-lfs's own program keys (git-lfs runs them as the filter the launcher passes), tools named by path",
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n[lfs "Extension.x"]\n\tclean = ./p %f\n[lfs "extension.x"]\n\tsmudge = ./p\n[lfs "customtransfer.t"]\n\tpath = ./p\n[lfs "x"]\n\tclean = a\n[mergetool "vimdiff"]\n\tpath = ./p\n[difftool "meld"]\n\tpath = ./p\n[man "m"]\n\tpath = ./p\n[browser "b"]\n\tpath = ./p\n[gpg "ssh"]\n\tdefaultKeyCommand = ./p\n',
      [
        'lfs.Extension.x.clean',
        'lfs.extension.x.smudge',
        'lfs.customtransfer.t.path',
        'mergetool.vimdiff.path',
        'difftool.meld.path',
        'man.m.path',
        'browser.b.path',
        'gpg.ssh.defaultkeycommand',
      ],
    ],
    [
      'an empty credential helper (git resets the list: no program) passes, the next one refuses',
      '[credential]\n\thelper =\n[credential "https://x"]\n\thelper = ""\n\thelper = ./p\n',
      ['credential.https://x.helper'],
    ],
    [
      'an integer is a boolean to git for core.fsmonitor and pager.* (not beyond an int, not 08)',
      '[core]\n\tfsmonitor = 2\n\tfsmonitor = 0x1F\n\tfsmonitor = 1k\n\tfsmonitor = " -7"\n\tfsmonitor = 010\n[pager]\n\tlog = 2g\n\tdiff = 1G\n\tshow = 08\n\tgrep = 2147483648\n\tblame = 0x\n',
      ['pager.log', 'pager.show', 'pager.grep', 'pager.blame'],
    ],
    [
      'a boolean is compared exactly, as git does ("true " is a command to git)',
      '[core]\n\tfsmonitor = "true "\n',
      ['core.fsmonitor'],
    ],
    ['an unparsable file refuses as a whole', '[diff "x"\ntextconv = a\n', ['(line 1)']],
  ])('%s', (_title, text, keys) => {
    expect(keysOf(text)).toEqual(keys);
  });

  it('names the file, the key, why and the fix', () => {
    expect(decideGitConfig(FILE, '[filter "evil"]\n\tclean = ./p\n')).toEqual([
      {
        file: FILE,
        key: 'filter.evil.clean',
        why: expect.stringContaining('Qwen 0.24.4 runs `git status` in the repository at every start'),
        fix: `remove it (git config --file ${FILE} --unset-all filter.evil.clean)`,
      },
    ]);
  });
});

describe('decideGitHook', () => {
  it.each<[string, number]>([
    ['post-index-change', 1],
    ['pre-commit', 0],
    ['post-checkout', 0],
  ])('%s: %i refusal(s)', (name, count) => {
    expect(decideGitHook(`/repo/.git/hooks/${name}`, name)).toHaveLength(count);
  });
});

describe('gitPathElsewhere: where git 2.39 takes a path-valued key from (interpolate_path)', () => {
  it.each([
    ['~/.git-credentials', 'below a home directory'],
    ['~dev/revs', 'below a home directory'],
    [
      '%(prefix)/../proc/self/cwd/hk',
      "below git's own installation prefix (git reads a leading %(prefix)/ so)",
    ],
    ['.husky/_', undefined],
    ['/etc/hostname', undefined],
    // Only a leading `%(prefix)/` is expanded; anything else is a path git reads as written.
    ['hooks/%(prefix)/x', undefined],
    ['%(prefix)x', undefined],
    ['%(PREFIX)/x', undefined],
  ])('%j → %j', (value, where) => {
    expect(gitPathElsewhere(value)).toEqual(where);
  });
});
