// `qwen-managed render --deployment FILE [--out DIR] [--reactivate] [--runtime-dir DIR] [--json]`:
// four progress steps, each one named stage of src/deploy/render/render-stages.ts or the writer.
import * as path from 'node:path';
import { ManagedError } from '../../base/errors.js';
import { platformOfHost } from '../../base/platform.js';
import type { ProfileKind } from '../../contracts/launch-plan.js';
import type { InstallLock } from '../../deploy/render/lock.js';
import type { RenderedInstall } from '../../deploy/render/render.js';
import {
  checkRenderTarget,
  loadBundledRuntimes,
  type RenderOverOptions,
  type RenderTarget,
  readDeploymentFile,
  renderOverTree,
} from '../../deploy/render/render-stages.js';
import { type WriteResult, writeInstall } from '../../deploy/render/writer.js';
import { type CliIO, defineCommand } from '../command.js';
import { InputError, UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';
import { type Progress, quietProgress } from '../progress.js';

export const RENDER_HELP = `Usage: qwen-managed render --deployment FILE [--out DIR] [--reactivate] [--take-over] [--runtime-dir DIR] [--json]

Renders the install tree described by deployment.json: bin/ (launcher shims), runtime/ (bundled
runtimes and launcher), profiles/<kind>/ (system settings with the managed hooks, system defaults,
trusted folders, provider config, MCP config, launch plan) and manifest.json with the sha256 of
every file. Writes are atomic (temp file + rename, manifest last); replaced files are kept under
backups/<time>/. Rendering the same input over the same tree changes nothing.

Options:
  --deployment FILE  the deployment manifest (required)
  --out DIR          stage the tree in DIR instead of installDir; its files still refer to installDir
                     (render in CI, ship the tree with configuration management)
  --reactivate       re-activate rolled-back profiles (a routine re-render keeps them rolled back)
  --take-over        render over a tree another deployment.json rendered, retiring the profiles this
                     file does not deploy (without it, render refuses)
  --runtime-dir DIR  bundled runtimes to install (default: this toolkit's dist/runtime)
  --json             print only the result as one JSON object (for configuration management)
  -h, --help         show this help

JSON result: {"changed", "dir", "installDir", "deployment", "written", "unchanged", "retired",
  "backupDir", "profiles": {KIND: "active"|"rolled-back"}, "notices"}; the file lists are sorted
  paths relative to dir, "changed" is true iff anything was written or retired, "backupDir" is
  null when nothing was replaced. Errors go to stderr as text, with the exit codes below.

Exit codes: 0 rendered (or already up to date), 1 deployment refused or write failed, 2 usage error,
130 interrupted (Ctrl+C: the lock is released; run render again to finish).
`;

const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A file-system refusal while writing the tree, as an administrator's mistake naming the path and the
 * fix; undefined for anything else (a real bug stays an internal error).
 */
export function writeRefusal(error: unknown, target: string, staged: boolean): InputError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  const where = (error as NodeJS.ErrnoException).path ?? target;
  const flag = staged ? '--out' : 'installDir';
  if (PERMISSION_CODES.has(code)) {
    return new InputError(
      `render: cannot write ${where} (${code}: ${code === 'EROFS' ? 'read-only file system' : 'permission denied'}); nothing was rendered into ${target}. Fix: run render as the user that owns ${target} (usually root), or stage the tree with --out DIR in a directory you can write`,
    );
  }
  if (code === 'EEXIST' || code === 'ENOTDIR') {
    return new InputError(
      `render: ${flag} ${target} is not a directory (${where} is an existing file); nothing was written. Fix: name a directory (new or an existing install tree), or remove the file`,
    );
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new InputError(
      `render: no space left writing ${where} (${code}); manifest.json was not updated, so the tree still verifies as before or reports the half-written files. Fix: free space, then render again`,
    );
  }
  return undefined;
}

/** A hand edit render wrote over: kept in backups/, and said, so the administrator can carry it over. */
function editedNotices(written: WriteResult): string[] {
  const kept = written.backupDir ?? 'backups';
  return [
    ...written.edited.map(
      (rel) =>
        `${rel} was edited after the last render (it is not the file manifest.json lists); render wrote it again, and the edited version is kept in ${kept}/${rel}. Fix: carry the change over into deployment.json if it should stay`,
    ),
    ...written.unlisted.map(
      (rel) =>
        `${rel} was not written by render (manifest.json does not list it); it is moved to ${kept}/${rel}. Fix: keep files of your own outside installDir`,
    ),
  ];
}

/** `render --json`: what a configuration-management run needs to report `changed` truthfully. */
export interface RenderJsonResult {
  changed: boolean;
  /** Where the tree was written (installDir, or the --out staging directory). */
  dir: string;
  /** The installDir every file refers to. */
  installDir: string;
  deployment: string;
  written: string[];
  unchanged: string[];
  retired: string[];
  backupDir: string | null;
  profiles: Partial<Record<ProfileKind, 'active' | 'rolled-back'>>;
  notices: string[];
}

export function renderJsonResult(
  dir: string,
  deploymentFile: string,
  installDir: string,
  rendered: RenderedInstall,
  written: WriteResult,
): RenderJsonResult {
  const sorted = (list: readonly string[]) => [...list].sort();
  return {
    changed: written.written.length > 0 || written.retired.length > 0,
    dir,
    installDir,
    deployment: deploymentFile,
    written: sorted(written.written),
    unchanged: sorted(written.unchanged),
    retired: sorted(written.retired),
    backupDir: written.backupDir ?? null,
    profiles: Object.fromEntries(
      Object.entries(rendered.manifest.profiles).map(([kind, profile]) => [kind, profile.state]),
    ),
    notices: [...rendered.notices, ...editedNotices(written)],
  };
}

/** Releases a held install lock on Ctrl+C (a killed render's lock would block the next render). */
function releaseOnInterrupt(io: CliIO): { held(lock: Promise<InstallLock>): void; done(): Promise<void> } {
  let lock: Promise<InstallLock | undefined> | undefined;
  const stop = io.onInterrupt?.(async () => {
    // A lock still being taken is waited for: its file may be on disk already.
    const held = await lock?.catch(() => undefined);
    lock = undefined;
    await held?.release();
    io.stderr.write(
      held === undefined
        ? 'render: interrupted (Ctrl+C) before writing anything\n'
        : `render: interrupted (Ctrl+C); released the lock of ${held.dir}. manifest.json is written last, so the tree is either as before or has new files that verify reports; run render again to finish\n`,
    );
  });
  return {
    held: (taking) => {
      lock = taking;
    },
    async done() {
      const held = await lock?.catch(() => undefined);
      lock = undefined;
      await held?.release();
      stop?.();
    },
  };
}

function writeSummary(written: WriteResult): string {
  const parts = [`${written.written.length} written`, `${written.unchanged.length} unchanged`];
  if (written.retired.length > 0) parts.push(`${written.retired.length} retired`);
  if (written.backupDir !== undefined) parts.push(`previous versions in ${written.backupDir}/`);
  return parts.join(', ');
}

/** The closing lines of a render without --json. */
function renderOutcome(
  dir: string,
  installDir: string,
  deploymentFile: string,
  rendered: RenderedInstall,
  written: WriteResult,
): string {
  const notices = [...rendered.notices, ...editedNotices(written)]
    .map((notice) => `render: ${notice}\n`)
    .join('');
  const staged = dir !== installDir ? ` (staged; files refer to ${installDir})` : '';
  return (
    notices +
    (written.written.length === 0 && written.retired.length === 0
      ? `render: ${dir} is up to date${staged}\n`
      : `render: rendered ${dir}${staged}; run \`qwen-managed verify --dir ${dir} --deployment ${deploymentFile}\`\n`)
  );
}

/** Steps 3 and 4: render over the tree under its lock, then write it; errno refusals explained. */
async function renderAndWrite(
  progress: Progress,
  target: RenderTarget,
  runtimeFiles: Map<string, Uint8Array>,
  options: RenderOverOptions & { staged: boolean },
): Promise<{ rendered: RenderedInstall; written: WriteResult }> {
  try {
    const { rendered, lock } = await progress.step(
      'Render the install tree',
      () => renderOverTree(target, runtimeFiles, options),
      (r) => `${r.rendered.files.size + 1} files`,
    );
    const written = await progress.step(
      'Write the install tree',
      () => writeInstall(target.dir, rendered, { now: options.now, lock }),
      writeSummary,
    );
    return { rendered, written };
  } catch (error) {
    // An expected error names itself; an errno from the file system is explained by writeRefusal.
    if (error instanceof ManagedError) throw error;
    throw writeRefusal(error, target.dir, options.staged) ?? error;
  }
}

export const renderCommand = defineCommand({
  name: 'render',
  summary: 'Render the install tree (settings, hooks, runtimes, launch plans, manifest) from deployment.json',
  help: RENDER_HELP,
  flags: {
    deployment: { type: 'string' },
    out: { type: 'string' },
    reactivate: { type: 'boolean' },
    'take-over': { type: 'boolean' },
    'runtime-dir': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(flags, io, deps: AdminDeps) {
    const deploymentFile = path.resolve(io.cwd, required('render', 'deployment', flags.deployment));
    const out = flags.out === undefined ? undefined : path.resolve(io.cwd, flags.out);
    const now = deps.now();
    // With --json, stdout carries the result alone: no progress lines.
    const progress = flags.json === true ? quietProgress : deps.progress(io.stdout, io.stderr);
    // Ctrl+C from here on releases the lock render holds (and says what was written).
    const lock = releaseOnInterrupt(io);
    try {
      const target = await progress.step(
        `Validate ${path.basename(deploymentFile)}`,
        async () => {
          const parsed = await readDeploymentFile(deploymentFile);
          if (out === undefined && parsed.deployment.platform !== platformOfHost(deps.hostPlatform)) {
            throw new UsageError(
              `render: a ${parsed.deployment.platform} deployment must be staged with --out on this machine`,
            );
          }
          return checkRenderTarget(deploymentFile, parsed, {
            out,
            hostPlatform: deps.hostPlatform,
            adminUid: deps.adminUid(),
          });
        },
        (checked) => checked.summary,
      );
      const runtimes = await progress.step(
        'Load the bundled runtimes',
        async () =>
          loadBundledRuntimes(
            flags['runtime-dir'] === undefined
              ? await deps.runtimeDir()
              : path.resolve(io.cwd, flags['runtime-dir']),
            target.parsed.deployment,
            deps.adminUid(),
          ),
        (loaded) => loaded.summary,
      );
      const { rendered, written } = await renderAndWrite(progress, target, runtimes.files, {
        toolkitVersion: deps.toolkitVersion,
        adminUid: deps.adminUid(),
        now,
        reactivate: flags.reactivate === true,
        takeOver: flags['take-over'] === true,
        locking: lock.held,
        staged: out !== undefined,
      });
      const { installDir } = target.parsed.deployment;
      io.stdout.write(
        flags.json === true
          ? `${JSON.stringify(renderJsonResult(target.dir, deploymentFile, installDir, rendered, written), null, 2)}\n`
          : renderOutcome(target.dir, installDir, deploymentFile, rendered, written),
      );
    } finally {
      await lock.done();
    }
    return 0;
  },
});
