// `qwen-managed render --deployment FILE [--out DIR] [--reactivate] [--runtime-dir DIR] [--json]`

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ManagedError } from '../../base/errors.js';
import { platformOfHost } from '../../base/platform.js';
import type { ProfileKind } from '../../contracts/launch-plan.js';
import { type ParsedDeployment, parseDeploymentText } from '../../deploy/deployment/parse.js';
import { pinnedHostProblems } from '../../deploy/deployment/pinned-host.js';
import { DeploymentInvalid } from '../../deploy/deployment/problems.js';
import { readPinnedHostFacts } from '../../deploy/pinned-host-facts.js';
import { acquireInstallLock, type InstallLock } from '../../deploy/render/lock.js';
import { type PreviousInstall, type RenderedInstall, renderInstall } from '../../deploy/render/render.js';
import { codeCacheSummary, loadRuntimeFiles, withCodeCache } from '../../deploy/render/runtime-files.js';
import { type WriteResult, writeInstall } from '../../deploy/render/writer.js';
import { isDirectory, loadInstallTree, previousInstallOf } from '../../deploy/tree.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../qwen/versions.js';
import type { Command } from '../command.js';
import type { AdminDeps } from '../deps.js';
import { commandError, InputError, UsageError } from '../errors.js';
import { parseFlags, required } from '../flags.js';
import { quietSteps } from '../progress.js';

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
    notices: [...rendered.notices],
  };
}

async function readDeployment(file: string): Promise<ParsedDeployment> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new InputError(`render: cannot read --deployment ${file}`);
  try {
    return parseDeploymentText(text, file);
  } catch (error) {
    if (error instanceof DeploymentInvalid) throw new InputError(`render: refused: ${error.message}`);
    throw error;
  }
}

async function previousInstall(dir: string): Promise<PreviousInstall | undefined> {
  return (await isDirectory(dir)) ? previousInstallOf(await loadInstallTree(dir)) : undefined;
}

export function createRenderCommand(deps: AdminDeps): Command {
  return {
    name: 'render',
    summary:
      'Render the install tree (settings, hooks, runtimes, launch plans, manifest) from deployment.json',
    help: RENDER_HELP,
    async run(args, io) {
      const flags = parseFlags(
        'render',
        args,
        {
          deployment: { type: 'string' },
          out: { type: 'string' },
          reactivate: { type: 'boolean' },
          'take-over': { type: 'boolean' },
          'runtime-dir': { type: 'string' },
          json: { type: 'boolean' },
        },
        { text: RENDER_HELP, stdout: io.stdout },
      );
      if (flags === undefined) return 0;
      const deploymentFile = path.resolve(io.cwd, required('render', 'deployment', flags.deployment));
      let parsed!: ParsedDeployment;
      let target!: string;
      let rendered!: RenderedInstall;
      let written!: WriteResult;
      let runtimeFiles!: Map<string, Uint8Array>;
      let lock: InstallLock | undefined;
      const now = deps.now();
      // With --json, stdout carries the result alone: no progress lines.
      const steps = flags.json === true ? quietSteps : deps.steps(io.stdout, io.stderr);
      // Ctrl+C: release the lock (a killed render's lock would block the next one until taken over).
      const stopWatching = io.onInterrupt?.(async () => {
        const held = lock;
        lock = undefined;
        await held?.release();
        io.stderr.write(
          held === undefined
            ? 'render: interrupted (Ctrl+C) before writing anything\n'
            : `render: interrupted (Ctrl+C); released the lock of ${held.dir}. manifest.json is written last, so the tree is either as before or has new files that verify reports; run render again to finish\n`,
        );
      });
      try {
        await steps([
          {
            title: `Validate ${path.basename(deploymentFile)}`,
            run: async () => {
              parsed = await readDeployment(deploymentFile);
              const { deployment } = parsed;
              const local = platformOfHost(deps.hostPlatform);
              if (flags.out === undefined && deployment.platform !== local) {
                throw new UsageError(
                  `render: a ${deployment.platform} deployment must be staged with --out on this machine`,
                );
              }
              // Rendering where the pins are (the target machine), they are judged by what they resolve to:
              // the wrapper behind a bin/qwen link, the Qwen package's engines, its version's settings.
              const host =
                deployment.platform === 'posix' && local === 'posix' ? readPinnedHostFacts(deployment) : {};
              const pinnedQwen = host.qwen?.version;
              const problems = pinnedHostProblems(deployment, host);
              if (problems.length > 0) {
                throw new InputError(
                  `render: refused: ${new DeploymentInvalid(deploymentFile, problems).message}`,
                );
              }
              target = flags.out === undefined ? deployment.installDir : path.resolve(io.cwd, flags.out);
              const existing = await fs.stat(target).catch(() => undefined);
              if (existing !== undefined && !existing.isDirectory()) {
                throw new InputError(
                  `render: ${flags.out === undefined ? 'installDir' : '--out'} ${target} is an existing file, not a directory; nothing was written. Fix: name a directory (new or an existing install tree), or remove the file`,
                );
              }
              const checked =
                pinnedQwen === undefined
                  ? ''
                  : SUPPORTED_QWEN_VERSIONS.includes(pinnedQwen)
                    ? `; settings checked against the pinned Qwen ${pinnedQwen}`
                    : `; the pinned Qwen ${pinnedQwen} is not supported (verify and the launcher refuse it)`;
              return `${deployment.platform}, profiles: ${Object.keys(deployment.profiles).join(', ')}${checked}`;
            },
          },
          {
            title: 'Load the bundled runtimes',
            run: async () => {
              const dir =
                flags['runtime-dir'] === undefined
                  ? await deps.runtimeDir()
                  : path.resolve(io.cwd, flags['runtime-dir']);
              const loaded = withCodeCache(await loadRuntimeFiles(dir), parsed.deployment, deps.adminUid());
              runtimeFiles = loaded.files;
              return `${dir}; ${codeCacheSummary(loaded.cache)}`;
            },
          },
          {
            title: 'Render the install tree',
            run: async () => {
              // Held from reading the current tree until the manifest is written: no interleaved writers.
              lock = await acquireInstallLock(target, now);
              const previous = await previousInstall(target);
              rendered = renderInstall(parsed, runtimeFiles, {
                toolkitVersion: deps.toolkitVersion,
                adminUid: deps.adminUid(),
                now,
                ...(previous === undefined ? {} : { previous }),
                reactivate: flags.reactivate === true,
                deploymentFile,
                takeOver: flags['take-over'] === true,
              });
              return `${rendered.files.size + 1} files`;
            },
          },
          {
            title: 'Write the install tree',
            run: async () => {
              written = await writeInstall(target, rendered, { now, lock });
              const parts = [`${written.written.length} written`, `${written.unchanged.length} unchanged`];
              if (written.retired.length > 0) parts.push(`${written.retired.length} retired`);
              if (written.backupDir !== undefined) parts.push(`previous versions in ${written.backupDir}/`);
              return parts.join(', ');
            },
          },
        ]);
      } catch (error) {
        // An expected error names itself; an errno from the file system is explained by writeRefusal.
        throw error instanceof ManagedError
          ? commandError('render', error)
          : (writeRefusal(error, target, flags.out !== undefined) ?? error);
      } finally {
        await lock?.release();
        stopWatching?.();
      }
      if (flags.json === true) {
        const result = renderJsonResult(
          target,
          deploymentFile,
          parsed.deployment.installDir,
          rendered,
          written,
        );
        io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return 0;
      }
      for (const notice of rendered.notices) io.stdout.write(`render: ${notice}\n`);
      const staged =
        target !== parsed.deployment.installDir
          ? ` (staged; files refer to ${parsed.deployment.installDir})`
          : '';
      io.stdout.write(
        written.written.length === 0 && written.retired.length === 0
          ? `render: ${target} is up to date${staged}\n`
          : `render: rendered ${target}${staged}; run \`qwen-managed verify --dir ${target} --deployment ${deploymentFile}\`\n`,
      );
      return 0;
    },
  };
}
