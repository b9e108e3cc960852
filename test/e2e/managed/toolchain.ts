// The pinned Node 22 and Qwen 0.24.4 as a rendered deployment may pin them: the launcher refuses a
// pin whose file or any directory above it is not owned by root (or the admin) or is writable by
// group or others (launcher/strict-modes.ts). `.cache/e2e/` normally passes (root-owned, umask
// 022). When it does not (a checkout with a group-writable parent, say), the toolchain is copied
// once into a root-owned 0755 directory under /tmp, keyed by the setup stamp, and pinned from there.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { StrictModes } from '../../../launcher/strict-modes.js';
import { e2eCacheDir, ensureE2eToolchain, node22, qwenCli } from '../harness/paths.js';

export interface PinnedToolchain {
  node: string;
  qwenCli: string;
  /** `in-place` when `.cache/e2e` passes the launcher's checks, else `copied`. */
  source: 'in-place' | 'copied';
  /** What the launcher's check said about `.cache/e2e` (empty when it passed). */
  problems: string[];
}

/** Problems the launcher's StrictModes check finds on the chain of each file (root as admin). */
export function strictModeProblems(files: readonly string[]): string[] {
  const strict = new StrictModes(0, fs);
  for (const file of files) strict.checkChain(file);
  return strict.problems();
}

let cached: PinnedToolchain | undefined;

export function pinnedToolchain(): PinnedToolchain {
  if (cached) return cached;
  ensureE2eToolchain();
  const problems = strictModeProblems([node22, qwenCli]);
  if (problems.length === 0) {
    cached = { node: node22, qwenCli, source: 'in-place', problems };
    return cached;
  }
  const stamp = fs.readFileSync(join(e2eCacheDir, '.stamp.json'));
  const key = createHash('sha256').update(stamp).digest('hex').slice(0, 12);
  const target = `/tmp/qme2e-toolchain-${key}`;
  const done = join(target, '.complete');
  if (!fs.existsSync(done)) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { mode: 0o755 });
    fs.chmodSync(target, 0o755);
    // cp -a keeps the execute bits (node, ripgrep); chmod go-w then clears group/other write.
    const copy = spawnSync('cp', ['-a', join(e2eCacheDir, 'node_modules'), join(target, 'node_modules')], {
      encoding: 'utf8',
    });
    if (copy.status !== 0) throw new Error(`copying the e2e toolchain failed: ${copy.stderr}`);
    spawnSync('chown', ['-R', 'root:root', target]);
    spawnSync('chmod', ['-R', 'go-w', target]);
    fs.writeFileSync(done, '');
  }
  const moved = (file: string): string => join(target, relative(e2eCacheDir, file));
  const copied = { node: moved(node22), qwenCli: moved(qwenCli) };
  const still = strictModeProblems([copied.node, copied.qwenCli]);
  if (still.length > 0)
    throw new Error(`the copied e2e toolchain still fails StrictModes:\n${still.join('\n')}`);
  console.log(
    `[e2e] ${e2eCacheDir} fails the launcher's StrictModes check; pinning the root-owned copy in ${target}:\n  ${problems.join('\n  ')}`,
  );
  cached = { ...copied, source: 'copied', problems };
  return cached;
}
