// The built CLI as an administrator runs it, in a real child process on real files: as root from the
// clone's dist/, or as a throwaway non-root user (root ignores file modes) from a self-contained
// bundle in a world-readable temporary directory (the clone may be 0700). One per test file.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';
import { REPO } from '../../unit/deploy/fixtures.js';
import { ensureTestUser, removeTestUser, type TestUser } from '../launcher/harness.js';

const CLI = path.join(REPO, 'dist', 'cli', 'qwen-managed.js');
export const EXAMPLES = path.join(REPO, 'examples', 'deployments');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AdminCli {
  /** The world-readable temporary directory the file's cases live in. */
  readonly work: string;
  /** The throwaway non-root user. */
  readonly user: TestUser;
  /** The CLI with `args` in `cwd`, as root or (`asUser`) as the throwaway user. */
  run(args: string[], cwd: string, asUser?: boolean): Run;
}

/**
 * The CLI with its packages inlined, and the runtimes beside it, in `<dir>/toolkit/`: what a non-root
 * user runs (the clone may be 0700, as on a clean CI clone). Returns the CLI's path.
 */
export async function bundleToolkit(dir: string): Promise<string> {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const bundle = path.join(dir, 'toolkit', 'cli', 'qwen-managed.mjs');
  await build({
    entryPoints: [path.join(REPO, 'src', 'cli', 'qwen-managed.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.18',
    logLevel: 'warning',
    absWorkingDir: REPO,
    banner: {
      js: "import { createRequire as __qmRequire } from 'node:module'; const require = __qmRequire(import.meta.url);",
    },
  });
  await fs.cp(path.join(REPO, 'dist', 'runtime'), path.join(dir, 'toolkit', 'runtime'), { recursive: true });
  return bundle;
}

/** Registers the set-up and tear-down of one test file's CLI world (`label` names its temp dir and user). */
export function adminCli(label: string): AdminCli {
  let work = '';
  let bundle = '';
  let user: TestUser | undefined;
  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), `qm-${label}-`));
    await fs.chmod(work, 0o755);
    bundle = await bundleToolkit(work);
    user = ensureTestUser(label.replace(/[^a-z]/g, ''), path.join(work, 'home'));
  }, 120_000);
  afterAll(async () => {
    if (user !== undefined) removeTestUser(user);
    await fs.rm(work, { recursive: true, force: true });
  });
  return {
    get work() {
      return work;
    },
    get user() {
      return user!;
    },
    run(args, cwd, asUser = false) {
      const result = spawnSync(process.execPath, [asUser ? bundle : CLI, ...args], {
        encoding: 'utf8',
        cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        // Only catches a hang: a loaded machine gets many times what a run takes.
        timeout: 120_000,
        ...(asUser ? { uid: user!.uid, gid: user!.gid } : {}),
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
  };
}

/** examples/deployments/<name>.json, parsed. */
export async function example(name: string): Promise<Record<string, any>> {
  return JSON.parse(await fs.readFile(path.join(EXAMPLES, `${name}.json`), 'utf8'));
}
