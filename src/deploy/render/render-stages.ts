// The stages of `qwen-managed render` as named functions, each from its inputs to its result: read
// and check deployment.json where it will be rendered, load the bundled runtimes, render over the
// tree that is there (under its lock). The command shows them as progress steps and writes the result
// with writeInstall; nothing here prints.
import * as fs from 'node:fs/promises';
import { AdminInputError } from '../../base/errors.js';
import { platformOfHost } from '../../base/platform.js';
import { findGroup, findUser } from '../../host/accounts.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../qwen/versions.js';
import { type ParsedDeployment, parseDeploymentText } from '../deployment/parse.js';
import { pinnedHostProblems } from '../deployment/pinned-host.js';
import { DeploymentInvalid, type Problem, problem } from '../deployment/problems.js';
import type { Deployment } from '../deployment/schema.js';
import { othersMayChange } from '../foreign-directory.js';
import { readAccountDb } from '../host-accounts.js';
import { readPinnedHostFacts } from '../pinned-host-facts.js';
import { isDirectory, loadInstallTree, previousInstallOf } from '../tree.js';
import { droppedCredentialFiles, droppedCredentialNotice } from './dropped-credentials.js';
import { acquireInstallLock, type InstallLock } from './lock.js';
import { type PreviousInstall, type RenderedInstall, renderInstall } from './render.js';
import { codeCacheSummary, loadRuntimeFiles, withCodeCache } from './runtime-files.js';

/** A refusal of render's input; the command puts its name in front. */
export class RenderRefused extends AdminInputError {
  override readonly name = 'RenderRefused';
}

export interface RenderTarget {
  /** deployment.json's absolute path. */
  file: string;
  parsed: ParsedDeployment;
  /** Where the tree is written: installDir, or the --out staging directory. */
  dir: string;
  /** One line: the platform, the profiles and what the pinned Qwen was checked against. */
  summary: string;
  /** The pinned Qwen package's version, when it is on this machine to read. */
  qwenVersion?: string;
}

/** deployment.json parsed, or a RenderRefused naming every problem. */
export async function readDeploymentFile(file: string): Promise<ParsedDeployment> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new RenderRefused(`cannot read --deployment ${file}`);
  try {
    return parseDeploymentText(text, file);
  } catch (error) {
    if (error instanceof DeploymentInvalid) throw new RenderRefused(`refused: ${error.message}`);
    throw error;
  }
}

/**
 * The deployment judged where it is rendered — on the target machine by what its pins resolve to
 * (the wrapper behind a bin/qwen link, the Qwen package's engines, its version's settings) — and the
 * directory it goes to, which must be a directory or nothing yet.
 */
export async function checkRenderTarget(
  file: string,
  parsed: ParsedDeployment,
  options: { out: string | undefined; hostPlatform: NodeJS.Platform; adminUid: number },
): Promise<RenderTarget> {
  const { deployment } = parsed;
  const host =
    deployment.platform === 'posix' && platformOfHost(options.hostPlatform) === 'posix'
      ? readPinnedHostFacts(deployment)
      : undefined;
  const problems = pinnedHostProblems(deployment, host ?? {});
  if (problems.length > 0)
    throw new RenderRefused(`refused: ${new DeploymentInvalid(file, problems).message}`);
  const dir = options.out ?? deployment.installDir;
  const existing = await fs.stat(dir).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new RenderRefused(
      `${options.out === undefined ? 'installDir' : '--out'} ${dir} is an existing file, not a directory; nothing was written. Fix: name a directory (new or an existing install tree), or remove the file`,
    );
  }
  if (platformOfHost(options.hostPlatform) === 'posix') refuseForeignDirectory(dir, options);
  if (host !== undefined && options.out === undefined) {
    const unknown = unknownDevelopers(deployment);
    if (unknown.length > 0)
      throw new RenderRefused(`refused: ${new DeploymentInvalid(file, unknown).message}`);
  }
  const qwenVersion = host?.qwen?.version;
  return {
    file,
    parsed,
    dir,
    summary: targetSummary(deployment, qwenVersion),
    ...(qwenVersion === undefined ? {} : { qwenVersion }),
  };
}

/**
 * The directory render writes (every directory above it, and every directory of a tree already there)
 * held to the launcher's StrictModes before anything is read or written: render runs as root, and
 * whoever may rename entries on that path (a developer's checkout or home) could swap a directory for
 * a link between render's checks and its writes — and the launcher refuses such an install anyway.
 */
function refuseForeignDirectory(dir: string, options: { out: string | undefined; adminUid: number }): void {
  const problems = othersMayChange(dir, options.adminUid);
  if (problems.length === 0) return;
  const key = options.out === undefined ? 'installDir' : '--out';
  throw new RenderRefused(
    `${key} ${dir} is in a directory others may change, so nothing was written: ${problems.join('; ')}. Fix: render into a directory only root (or you) can write, such as /opt/qwen-managed/install, or correct the owner and modes as said`,
  );
}

/**
 * The developers the real install is for, as verify's host.credentials judges them there: an account
 * this machine does not know could never launch (a staged tree, --out, may be for another machine).
 */
function unknownDevelopers(deployment: Deployment): Problem[] {
  const developers = deployment.developers;
  if (developers === undefined) return [];
  const db = readAccountDb(developers.users, developers.groups);
  const fix =
    'create it, or correct deployment.json "developers" (to stage for another machine: render with --out)';
  return [
    ...developers.users.flatMap((name, i) =>
      findUser(db, name) === undefined
        ? [
            problem(
              ['developers', 'users', i],
              name,
              'is not an account on this machine: every launch by it would fail',
              fix,
            ),
          ]
        : [],
    ),
    ...developers.groups.flatMap((name, i) =>
      findGroup(db, name) === undefined
        ? [
            problem(
              ['developers', 'groups', i],
              name,
              'is not a group on this machine: no member of it could launch',
              fix,
            ),
          ]
        : [],
    ),
  ];
}

function targetSummary(deployment: Deployment, pinnedQwen: string | undefined): string {
  const checked =
    pinnedQwen === undefined
      ? ''
      : SUPPORTED_QWEN_VERSIONS.includes(pinnedQwen)
        ? `; settings checked against the pinned Qwen ${pinnedQwen}`
        : `; the pinned Qwen ${pinnedQwen} is not supported (verify and the launcher refuse it)`;
  return `${deployment.platform}, profiles: ${Object.keys(deployment.profiles).join(', ')}${checked}`;
}

/** The bundled runtimes to install, with the code cache made for the deployment's pinned node. */
export async function loadBundledRuntimes(
  dir: string,
  deployment: Deployment,
  adminUid: number,
): Promise<{ files: Map<string, Uint8Array>; summary: string }> {
  const loaded = withCodeCache(await loadRuntimeFiles(dir), deployment, adminUid);
  return { files: loaded.files, summary: `${dir}; ${codeCacheSummary(loaded.cache)}` };
}

export interface RenderOverOptions {
  toolkitVersion: string;
  adminUid: number;
  now: string;
  reactivate: boolean;
  takeOver: boolean;
  /**
   * Told the lock as soon as it is being taken (the command releases it on Ctrl+C): its file is on
   * disk before the promise settles, so a Ctrl+C in between must wait for it, not miss it.
   */
  locking(lock: Promise<InstallLock>): void;
}

/**
 * Renders over the tree at `target.dir`, holding its lock from reading the current tree on: the
 * caller writes the result with the same lock and releases it.
 */
export async function renderOverTree(
  target: RenderTarget,
  runtimeFiles: Map<string, Uint8Array>,
  options: RenderOverOptions,
): Promise<{ rendered: RenderedInstall; lock: InstallLock }> {
  const acquiring = acquireInstallLock(target.dir, options.now);
  options.locking(acquiring);
  const lock = await acquiring;
  const previous = (await isDirectory(target.dir))
    ? previousInstallOf(await loadInstallTree(target.dir))
    : undefined;
  const rendered = renderInstall(target.parsed, runtimeFiles, {
    toolkitVersion: options.toolkitVersion,
    adminUid: options.adminUid,
    now: options.now,
    ...(previous === undefined ? {} : { previous }),
    reactivate: options.reactivate,
    deploymentFile: target.file,
    takeOver: options.takeOver,
    ...(target.qwenVersion === undefined ? {} : { qwenVersion: target.qwenVersion }),
  });
  if (previous !== undefined) rendered.notices.push(...(await droppedCredentialNotices(previous, rendered)));
  return { rendered, lock };
}

/**
 * A credential file the previous render routed and this one does not, when it is still there: it
 * stays readable by whoever could read it (render deletes nothing outside the tree), so it is said.
 */
async function droppedCredentialNotices(
  previous: PreviousInstall,
  rendered: RenderedInstall,
): Promise<string[]> {
  const next = new Map([...rendered.files].map(([rel, file]) => [rel, file.bytes]));
  const notices: string[] = [];
  for (const dropped of droppedCredentialFiles([previous.files], next)) {
    if ((await fs.lstat(dropped.file).catch(() => undefined)) !== undefined)
      notices.push(droppedCredentialNotice(dropped));
  }
  return notices;
}
