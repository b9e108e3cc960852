// Ctrl+C during render, with a real SIGINT: the render releases the install lock, says so and exits
// 130, leaving nothing written (interrupt-child.ts pauses it while it holds the lock).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { REPO, tempDir } from '../../unit/deploy/fixtures.js';

const CHILD = path.join(REPO, 'test', 'integration', 'deploy', 'interrupt-child.ts');

async function pausedRender() {
  const dir = await tempDir();
  const out = path.join(dir, 'tree');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CHILD,
      path.join(REPO, 'examples', 'deployments', 'on-demand.json'),
      out,
      path.join(REPO, 'dist', 'runtime'),
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const paused = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('paused\n')) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await paused;
  const lock = path.join(out, '.qwen-managed.lock');
  expect(existsSync(lock)).toBe(true);
  return { child, out, lock, exited, stderr: () => stderr };
}

it('SIGINT while render holds the lock: lock released, message on stderr, exit 130, nothing written', async () => {
  const { child, out, exited, stderr } = await pausedRender();
  child.kill('SIGINT');
  expect(await exited).toBe(130);
  expect(stderr()).toBe(
    `render: interrupted (Ctrl+C); released the lock of ${out}. manifest.json is written last, so the tree is either as before or has new files that verify reports; run render again to finish\n`,
  );
  expect(await fs.readdir(out)).toEqual([]);
}, 60_000);

it('negative control: a render killed without a chance to clean up (SIGKILL) leaves its lock behind', async () => {
  const { child, lock, exited } = await pausedRender();
  child.kill('SIGKILL');
  await exited;
  expect(existsSync(lock)).toBe(true);
}, 60_000);
