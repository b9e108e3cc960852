// The test run's own location for what a throwaway non-root user must execute or read: a directory
// made for this run under /tmp, owned by root and not writable by group or others, holding a copy of
// the pinned toolchain (Node 22 and Qwen from .cache/e2e) and of the fixtures Qwen runs as hooks or
// MCP servers. The clone itself may sit where that user cannot go (a 0700 `mktemp -d` directory,
// /root) or below directories the launcher's StrictModes check refuses (group-writable, owned by
// someone else), so nothing the user runs may live in it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { StrictModes } from '../../../src/host/strict-modes.js';
import { e2eCacheDir, node22, qwenCli, qwenPackageDir, repoRoot } from './paths.js';

export interface RunLocation {
  /** `/tmp/qme2e-run-<hex>`: root-owned, 0755. */
  dir: string;
  node22: string;
  qwenCli: string;
  qwenPackageDir: string;
  /** Copies of test/e2e/fixtures/*. */
  hookRecorder: string;
  mcpProbeServer: string;
}

const PREFIX = '/tmp/qme2e-run-';
/** Written into the location: the pid of the process that made it (stale once that pid is gone). */
const OWNER_FILE = '.owner-pid';
const FIXTURES = ['hook-recorder.mjs', 'mcp-probe-server.mjs'] as const;

const inLocation = (dir: string, file: string): string => join(dir, 'toolchain', relative(e2eCacheDir, file));

function locationAt(dir: string): RunLocation {
  return {
    dir,
    node22: inLocation(dir, node22),
    qwenCli: inLocation(dir, qwenCli),
    qwenPackageDir: inLocation(dir, qwenPackageDir),
    hookRecorder: join(dir, 'fixtures', 'hook-recorder.mjs'),
    mcpProbeServer: join(dir, 'fixtures', 'mcp-probe-server.mjs'),
  };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}): ${result.stderr.trim()}`);
  }
}

/** Directories on the way to `dir` that a user who is neither owner nor group member cannot pass. */
export function untraversable(dir: string): string[] {
  const blocked: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if ((fs.statSync(at).mode & 0o001) === 0) blocked.push(at);
    if (at === '/') return blocked;
  }
}

/** Locations left by runs whose process is gone (killed before their teardown). */
export function sweepStaleRunLocations(): void {
  for (const name of fs.readdirSync(dirname(PREFIX))) {
    const dir = join(dirname(PREFIX), name);
    if (!dir.startsWith(PREFIX)) continue;
    let pid: number;
    try {
      pid = Number(fs.readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (fs.existsSync(`/proc/${pid}`)) continue;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Makes this run's location (root only): copies the installed toolchain (run
 * `ensureE2eToolchain()` first) and the e2e fixtures, then makes every entry root-owned and not
 * group/other-writable, and checks the result the way the launcher and the throwaway user will meet
 * it. Remove it with `removeRunLocation`.
 */
export function stageRunLocation(): RunLocation {
  sweepStaleRunLocations();
  const dir = `${PREFIX}${randomBytes(6).toString('hex')}`;
  fs.mkdirSync(dir, { mode: 0o755 });
  try {
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(join(dir, OWNER_FILE), String(process.pid));
    fs.mkdirSync(join(dir, 'toolchain'));
    fs.mkdirSync(join(dir, 'fixtures'));
    // cp -a keeps the execute bits (node, ripgrep) and the package tree as installed.
    run('cp', ['-a', join(e2eCacheDir, 'node_modules'), join(dir, 'toolchain', 'node_modules')]);
    for (const file of FIXTURES)
      fs.copyFileSync(join(repoRoot, 'test', 'e2e', 'fixtures', file), join(dir, 'fixtures', file));
    run('chown', ['-R', '0:0', dir]);
    run('chmod', ['-R', 'u+rwX,go+rX,go-w', dir]);
    const location = locationAt(dir);
    const strict = new StrictModes(0, fs);
    for (const file of [location.node22, location.qwenCli, location.hookRecorder]) strict.checkChain(file);
    const problems = [
      ...strict.problems(),
      ...untraversable(dir).map((d) => `${d} is not searchable by others`),
    ];
    if (problems.length > 0)
      throw new Error(`the e2e run location ${dir} is unusable: ${problems.join('; ')}`);
    return location;
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export function removeRunLocation(location: RunLocation): void {
  if (!location.dir.startsWith(PREFIX)) throw new Error(`${location.dir} is not an e2e run location`);
  fs.rmSync(location.dir, { recursive: true, force: true });
}

/**
 * Adds another supported Qwen version (installed by scripts/e2e/setup.mjs into
 * .cache/e2e/qwen-<version>/) to the run location, root-owned like the rest, once per run; returns
 * its cli.js. Only the per-version smoke needs them, so a run of one e2e file does not copy them.
 */
export function stageQwenVersion(location: RunLocation, version: string): string {
  const target = join(location.dir, 'toolchain', `qwen-${version}`);
  const cli = join(target, 'node_modules', '@qwen-code', 'qwen-code', 'cli.js');
  if (fs.existsSync(cli)) return cli;
  const source = join(e2eCacheDir, `qwen-${version}`, 'node_modules');
  if (!fs.existsSync(source))
    throw new Error(`Qwen ${version} is not installed in ${source}: run \`npm run e2e:setup\``);
  fs.mkdirSync(target, { mode: 0o755 });
  run('cp', ['-a', source, join(target, 'node_modules')]);
  run('chown', ['-R', '0:0', target]);
  run('chmod', ['-R', 'u+rwX,go+rX,go-w', target]);
  const strict = new StrictModes(0, fs);
  strict.checkChain(cli);
  if (strict.problems().length > 0)
    throw new Error(`Qwen ${version} in the run location is unusable: ${strict.problems().join('; ')}`);
  return cli;
}
