// The Debian package as data (scripts/fleet/debian.ts): versions, modes, pruning, control text,
// the man page. The built package itself is checked by test/fleet/deb.test.ts.
import { describe, expect, it } from 'vitest';
import {
  controlText,
  debianVersion,
  installedSizeKiB,
  isPruned,
  LAYOUT,
  lintianOverrides,
  manPage,
  packagedMode,
  rfc2822,
  wrapperScript,
} from '../../../scripts/fleet/debian.js';

describe('debianVersion', () => {
  it.each([
    ['0.1.0', '0.1.0'],
    ['1.2.0-rc.1', '1.2.0~rc.1'],
    ['1.2.0+build.7', '1.2.0+build.7'],
    ['1.2.0-beta.2+exp', '1.2.0~beta.2+exp'],
  ])('%s → %s (a prerelease sorts before its release)', (semver, debian) => {
    expect(debianVersion(semver)).toBe(debian);
  });

  it.each(['1.2', 'v1.2.3', '1.2.3 '])('refuses %j, naming it', (bad) => {
    expect(() => debianVersion(bad)).toThrow(`package.json version ${JSON.stringify(bad)} is not semver`);
  });
});

describe('packaged modes: nothing group- or other-writable, npm x bits kept', () => {
  it.each([
    ['dir', 0o777, 0o755],
    ['dir', 0o700, 0o755],
    ['file', 0o664, 0o644],
    ['file', 0o600, 0o644],
    ['file', 0o775, 0o755],
    ['file', 0o744, 0o755],
  ] as const)('%s %o → %o', (kind, mode, packaged) => {
    expect(packagedMode(kind, mode)).toBe(packaged);
  });
});

describe('pruning', () => {
  it.each([
    ['node_modules/.bin', true],
    ['node_modules/.bin/qwen', true],
    ['node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-win32/rg.exe', true],
    ['node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg', false],
    ['node_modules/function-bind/.eslintrc', true],
    ['node_modules/json-schema-traverse/spec/.eslintrc.yml', true],
    ['node_modules/isexe/.npmignore', true],
    ['node_modules/fast-uri/.gitattributes', true],
    ['node_modules/eslintrc-parser/index.js', false],
    ['node_modules/.binary/x', false],
  ] as const)('%s → %s', (rel, pruned) => {
    expect(isPruned(rel)).toBe(pruned);
  });
});

describe('control file and documentation', () => {
  it('has the fields dpkg and lintian require, the description folded with a leading space', () => {
    const text = controlText({
      version: '0.1.0',
      maintainer: 'Team <team@example.org>',
      shlibsDepends: 'libc6 (>= 2.34)',
      installedSizeKiB: 42,
      nodeVersion: '22.23.3',
      qwenVersion: '0.24.4',
    });
    const lines = text.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      'Package: qwen-managed',
      'Version: 0.1.0',
      'Architecture: amd64',
      'Maintainer: Team <team@example.org>',
      'Installed-Size: 42',
      'Depends: libc6 (>= 2.34)',
      'Section: devel',
      'Priority: optional',
    ]);
    expect(lines[8]).toBe('Description: Managed Qwen Code 0.24.4 with external context, offline');
    expect(lines.slice(9, -1).every((l) => l.startsWith(' ') && l.length <= 80)).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('Installed-Size counts each file in KiB rounded up and 1 per directory or link', () => {
    expect(
      installedSizeKiB([
        { kind: 'file', size: 0 },
        { kind: 'file', size: 1 },
        { kind: 'file', size: 1024 },
        { kind: 'file', size: 1025 },
        { kind: 'dir', size: 0 },
        { kind: 'link', size: 0 },
      ]),
    ).toBe(0 + 1 + 1 + 2 + 1 + 1);
  });

  it('changelog dates are RFC 2822 in UTC', () => {
    expect(rfc2822(new Date('2026-11-29T08:05:09Z'))).toBe('Sun, 29 Nov 2026 08:05:09 +0000');
  });

  it('the wrapper runs the toolkit on the packaged Node, passing every argument', () => {
    expect(wrapperScript()).toBe(
      `#!/bin/sh\n# qwen-managed from the Debian package: the toolkit in ${LAYOUT.toolkit} on the packaged Node.\nexec ${LAYOUT.nodeBinary} ${LAYOUT.toolkit}/dist/cli/qwen-managed.js "$@"\n`,
    );
  });

  it('every lintian override block opens with its reason', () => {
    const lines = lintianOverrides().trim().split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    lines.forEach((line, n) => {
      if (line.startsWith('#')) expect(lines[n + 1]).toMatch(/^qwen-managed: [a-z-]+ /);
      else expect(line).toMatch(/^qwen-managed: [a-z-]+ .*\[.+\]$/);
    });
  });

  it('the man page keeps help text literal: backslashes escaped, a leading dot or quote not a request', () => {
    const page = manPage({
      version: '0.1.0',
      date: new Date('2026-11-29T00:00:00Z'),
      programHelp: "Usage: qwen-managed <command>\n.not a request\n'neither\nC:\\path\n",
      commandHelps: [{ name: 'render', help: 'Usage: qwen-managed render\n' }],
    });
    expect(page.split('\n').slice(0, 10)).toEqual([
      '.TH QWEN-MANAGED 1 "2026-11" "qwen-managed 0.1.0" "User Commands"',
      '.SH NAME',
      'qwen-managed \\- render, verify, roll back and launch managed Qwen Code deployments',
      '.SH DESCRIPTION',
      '.nf',
      'Usage: qwen-managed <command>',
      '\\&.not a request',
      "\\&'neither",
      'C:\\epath',
      '.fi',
    ]);
    expect(page).toContain('.SH RENDER\n.nf\nUsage: qwen-managed render\n.fi\n');
  });
});
