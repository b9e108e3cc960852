// verify, I/O layer: loads the tree and (optionally) the deployment, renders it afresh in memory,
// stats the pinned files on this machine, smoke-runs the bundled runtimes, then hands everything to
// the pure checks.

import { execFile } from 'node:child_process';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AdminInputError } from '../../base/errors.js';
import { type Platform, platformOfHost } from '../../base/platform.js';
import { parseRuntimeConfig } from '../../config/load.js';
import { credentialVariable } from '../../config/names.js';
import { BROKER_CONFIG_REL } from '../../contracts/broker.js';
import { BACKUPS_DIR } from '../../contracts/install-manifest.js';
import { type LaunchPlan, OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import { OPENCLAW_PROFILE_FILES, PROFILE_FILES, profileRel } from '../../contracts/layout.js';
import { TOOL_REMEMBER, TOOL_SEARCH } from '../../contracts/names.js';
import { openclawLaunchPlanSchema } from '../../contracts/openclaw-launch.js';
import { credentialContentProblems, type HostFs, installHostProblems } from '../../host/install-checks.js';
import { openclawHostProblems, openclawPackageProblems } from '../../host/openclaw-checks.js';
import { walkQwenPackage } from '../../host/qwen-package.js';
import { StrictModes } from '../../host/strict-modes.js';
import { planArgv } from '../../policy/arguments.js';
import { ARGUMENT_POLICY } from '../../policy/policies.js';
import { pinnedQwenFacts, ripgrepRel } from '../../qwen/versions.js';
import { parseDeploymentText } from '../deployment/parse.js';
import { DeploymentInvalid } from '../deployment/problems.js';
import { pathChain, readAccountDb } from '../host-accounts.js';
import { showValue } from '../json.js';
import { readPinnedHostFacts } from '../pinned-host-facts.js';
import { droppedCredentialFiles } from '../render/dropped-credentials.js';
import { renderInstall } from '../render/render.js';
import { loadRuntimeFiles, withCodeCache } from '../render/runtime-files.js';
import { type InstallTree, loadInstallTree, notAnInstallTree, previousInstallOf } from '../tree.js';
import { brokerHostFacts } from './broker-facts.js';
import { type BrokerHostFacts, brokerConfigOf } from './checks/broker.js';
import { CA_FILE_MAX_BYTES, type CaFileFact } from './checks/ca-file.js';
import { type CredentialAccessFacts, credentialFiles, developersOf } from './checks/credential-access.js';
import { extraCaFiles, type HostFacts, type HostStat, hostPaths } from './checks/host.js';
import type { OpenclawHostFact } from './checks/openclaw.js';
import type { QwenTreeFact, RipgrepFact } from './checks/qwen-tree.js';
import { buildReport, type VerifyReport } from './report.js';
import { type McpSmokeProfile, smokeRuntimes } from './smoke.js';
import { type SmokeResult, type VerifyInputs, verifyTree } from './verify.js';
import { buildView, type TreeView } from './view.js';

export interface VerifyRunOptions {
  dir: string;
  deploymentFile?: string;
  /** The toolkit's runtime bundles, for the drift render. */
  runtimeDir: string;
  toolkitVersion: string;
  smoke: boolean;
  hostPlatform: NodeJS.Platform;
  /** Node for smoke runs when the pinned node is not usable on this machine. */
  fallbackNode: string;
  now: string;
}

export class VerifyInputError extends AdminInputError {
  override readonly name = 'VerifyInputError';
}

async function statFact(p: string): Promise<HostStat | null> {
  const stat = await fs.stat(p).catch(() => undefined);
  if (stat === undefined) return null;
  return {
    kind: stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other',
    mode: stat.mode & 0o777,
    uid: stat.uid,
  };
}

/** The CA file's text, for a path host facts found to be a regular file. */
async function caFileFact(file: string): Promise<CaFileFact> {
  try {
    const stat = await fs.stat(file);
    if (stat.size > CA_FILE_MAX_BYTES) return { kind: 'too-large', size: stat.size };
    return { kind: 'read', text: await fs.readFile(file, 'latin1') };
  } catch (error) {
    return { kind: 'unreadable', code: String((error as NodeJS.ErrnoException).code ?? 'error') };
  }
}

/** `<node> --version` of the pinned node, or undefined when it does not answer like Node. */
function nodeVersion(node: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(node, ['--version'], { timeout: 10_000, env: {} }, (error, stdout) => {
      const version = String(stdout).trim();
      resolve(error === null && /^v\d+\.\d+\.\d+/.test(version) ? version : undefined);
    });
  });
}

function realOr(p: string): string {
  try {
    return fsSync.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The tree is the real install when it is the directory its launch plans name on this host's
 * platform: then verify runs the launcher's own host checks on it; a staged tree (`render --out`)
 * is checked for what it can be before it is moved into place.
 */
function isRealInstall(dir: string, plans: readonly LaunchPlan[], samePlatform: boolean): boolean {
  return samePlatform && plans.length > 0 && plans.every((p) => realOr(p.installDir) === realOr(dir));
}

/** The launcher's host checks (src/host/install-checks.ts) for every deployed profile, deduplicated. */
function launcherHostProblems(
  view: TreeView,
  dir: string,
  platform: Platform,
  host: HostFacts | undefined,
): string[] {
  const manifest = view.tree.manifest!;
  const found = new Set<string>();
  for (const profile of view.profiles) {
    const plan = profile.plan;
    const bytes = view.tree.files.get(profileRel(profile.kind, PROFILE_FILES.launchPlan))?.bytes;
    if (plan === undefined || bytes === undefined) continue;
    const externalContextActive = profile.state === 'active';
    const { argv, problems: argvProblems } = planArgv(plan, externalContextActive, ARGUMENT_POLICY);
    if (argvProblems.length > 0) {
      for (const problem of argvProblems) found.add(problem);
      continue;
    }
    const { problems } = installHostProblems({
      installDir: realOr(dir),
      kind: profile.kind,
      platform,
      manifest,
      plan,
      planBytes: bytes,
      externalContextActive,
      argv,
      policy: ARGUMENT_POLICY,
      fs: fsSync as HostFs,
      // The pinned node's own `--version` (asked above), judged against Qwen's engines as the launcher does.
      ...(host?.get(plan.node)?.version === undefined ? {} : { nodeVersion: host.get(plan.node)!.version! }),
    });
    for (const problem of problems) found.add(problem);
    // The launcher reads these at every start; verify judges them with its reader.
    for (const problem of credentialContentProblems(plan, externalContextActive, fsSync as HostFs))
      found.add(problem);
  }
  return [...found];
}

/** The vendored ripgrep of the walked Qwen package, for this host (its path is a per-version fact). */
function ripgrepFact(fact: QwenTreeFact): RipgrepFact | undefined {
  if (fact.kind !== 'walked' || !fact.qwenPackage) return undefined;
  const facts = pinnedQwenFacts(fact.version);
  const file = `${fact.root}/${ripgrepRel(facts, process.platform, process.arch)}`;
  const stat = fsSync.statSync(file, { throwIfNoEntry: false });
  return stat === undefined ? { path: file, mode: null } : { path: file, mode: stat.mode & 0o7777 };
}

async function deploymentInputs(
  file: string,
  tree: InstallTree,
  options: VerifyRunOptions,
): Promise<NonNullable<VerifyInputs['deployment']>> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new VerifyInputError(`cannot read --deployment ${file}`);
  let parsed: ReturnType<typeof parseDeploymentText>;
  try {
    parsed = parseDeploymentText(text, file);
  } catch (error) {
    if (error instanceof DeploymentInvalid) return { problems: error.problems };
    throw error;
  }
  try {
    // The code cache is made as render made it, so a tree rendered on this machine shows no drift.
    const { files: runtimeFiles, cache: codeCache } = withCodeCache(
      await loadRuntimeFiles(options.runtimeDir),
      parsed.deployment,
      tree.manifest?.adminUid ?? 0,
    );
    const previous = previousInstallOf(tree);
    // The pinned Qwen's version read as render reads it, so its per-version facts render the same.
    const local = platformOfHost(options.hostPlatform);
    const qwenVersion =
      parsed.deployment.platform === 'posix' && local === 'posix'
        ? readPinnedHostFacts(parsed.deployment).qwen?.version
        : undefined;
    const rendered = renderInstall(parsed, runtimeFiles, {
      ...(qwenVersion === undefined ? {} : { qwenVersion }),
      toolkitVersion: options.toolkitVersion,
      // Drift is about content: compare with the uid that rendered the tree, not the verifier's.
      adminUid: tree.manifest?.adminUid ?? 0,
      // Where the owner file lived is provenance, not content: keep the tree's.
      ...(tree.manifest?.deploymentFile === undefined
        ? {}
        : { deploymentFile: tree.manifest.deploymentFile }),
      now: options.now,
      ...(previous === undefined ? {} : { previous }),
    });
    return { rendered, codeCache };
  } catch (error) {
    return { renderError: (error as Error).message };
  }
}

function mcpSmokeProfile(tree: InstallTree, dir: string): McpSmokeProfile | undefined {
  for (const kind of ['on-demand', 'write'] as const) {
    const state = tree.manifest?.profiles[kind]?.state;
    const file = tree.files.get(profileRel(kind, PROFILE_FILES.providerConfig));
    if (state === undefined || file === undefined) continue;
    try {
      const config = parseRuntimeConfig(file.bytes.toString('utf8'), 1);
      return {
        configFile: path.join(dir, 'profiles', kind, PROFILE_FILES.providerConfig),
        credentialVariable: credentialVariable(config.provider),
        tools: config.write === undefined ? [TOOL_SEARCH] : [TOOL_SEARCH, TOOL_REMEMBER],
      };
    } catch {
      // an invalid config is reported by provider.config; try the other profile
    }
  }
  return undefined;
}

/**
 * The openclaw-recall profile's host, judged by the launcher's own checks (src/host/openclaw-checks.ts):
 * all of them on the real install; on a staged tree only the pinned Node and OpenClaw (StrictModes,
 * package, versions, argv), whose paths already are the final ones.
 */
async function openclawHostFact(
  view: TreeView,
  dir: string,
  hostPlatform: Platform,
): Promise<OpenclawHostFact | undefined> {
  const manifest = view.tree.manifest;
  const parsed = view.openclaw?.json(OPENCLAW_PROFILE_FILES.launchPlan);
  const bytes = view.tree.files.get(profileRel(OPENCLAW_PROFILE, OPENCLAW_PROFILE_FILES.launchPlan))?.bytes;
  if (manifest === undefined || parsed?.ok !== true || bytes === undefined) return undefined;
  const checked = openclawLaunchPlanSchema.safeParse(parsed.value);
  if (!checked.success || checked.data.platform !== hostPlatform) return undefined;
  const plan = checked.data;
  const nodeVersionNow = await nodeVersion(plan.node);
  if (realOr(plan.installDir) === realOr(dir)) {
    const { problems } = openclawHostProblems({
      installDir: realOr(dir),
      platform: hostPlatform,
      manifest,
      plan,
      planBytes: bytes,
      externalContextActive: view.openclaw?.state === 'active',
      fs: fsSync as HostFs,
      nodeVersion: nodeVersionNow,
    });
    return { real: true, problems };
  }
  // Like Qwen's pins: each file and every directory above it owned by root or the admin, not writable by others.
  const strict = new StrictModes(manifest.adminUid, fsSync);
  const missing: string[] = [];
  let cli = plan.cli;
  for (const [what, pin] of [
    ['OpenClaw node', plan.node],
    ['OpenClaw cli', plan.cli],
  ] as const) {
    const chain = strict.checkChain(pin);
    if (chain.kind === 'missing')
      missing.push(
        `${what} ${showValue(pin)} does not exist on this machine (${chain.path} is missing; fine for a staged tree; the launcher refuses to start until it does)`,
      );
    if (chain.kind === 'ok' && pin === plan.cli) cli = chain.realPath;
  }
  // A staged tree's pins may be absent here, as Qwen's are (host.pins): warned, and nothing to judge.
  if (missing.length > 0) return { real: false, problems: strict.problems(), warnings: missing };
  const pack = openclawPackageProblems(plan, cli, nodeVersionNow, fsSync as HostFs);
  return { real: false, problems: [...strict.problems(), ...pack.problems] };
}

/** A regular file's bytes, or undefined (absent, a link, a FIFO that would block the read). */
async function regularFile(file: string): Promise<Uint8Array | undefined> {
  const stat = await fs.lstat(file).catch(() => undefined);
  return stat?.isFile() === true ? fs.readFile(file).catch(() => undefined) : undefined;
}

/**
 * The credential files an earlier render routed (the launch plans and broker.json every backups/
 * folder keeps) that the tree no longer routes and that are still on this machine.
 */
async function staleCredentialFiles(
  dir: string,
  tree: InstallTree,
): Promise<{ file: string; names: string[] }[]> {
  const backups = path.join(dir, BACKUPS_DIR);
  const folders = await fs.readdir(backups, { withFileTypes: true }).catch(() => []);
  const earlier: Map<string, Uint8Array>[] = [];
  for (const folder of folders.filter((f) => f.isDirectory())) {
    const root = path.join(backups, folder.name);
    const files = new Map<string, Uint8Array>();
    const kinds = await fs.readdir(path.join(root, 'profiles'), { withFileTypes: true }).catch(() => []);
    for (const rel of [
      BROKER_CONFIG_REL,
      ...kinds.filter((k) => k.isDirectory()).map((k) => `profiles/${k.name}/${PROFILE_FILES.launchPlan}`),
    ]) {
      const bytes = await regularFile(path.join(root, rel));
      if (bytes !== undefined) files.set(rel, bytes);
    }
    earlier.push(files);
  }
  const current = new Map([...tree.files].map(([rel, file]) => [rel, file.bytes]));
  const stale: { file: string; names: string[] }[] = [];
  for (const dropped of droppedCredentialFiles(earlier, current))
    if ((await fs.lstat(dropped.file).catch(() => undefined)) !== undefined) stale.push(dropped);
  return stale;
}

export async function runVerify(options: VerifyRunOptions): Promise<VerifyReport> {
  const dir = path.resolve(options.dir);
  const notInstall = notAnInstallTree(dir);
  if (notInstall !== undefined) throw new VerifyInputError(notInstall);
  const tree = await loadInstallTree(dir);
  const deployment =
    options.deploymentFile === undefined
      ? undefined
      : await deploymentInputs(options.deploymentFile, tree, options);

  const view = buildView(tree);
  const plans = view.profiles.flatMap((p) => (p.plan === undefined ? [] : [p.plan])) as LaunchPlan[];
  const hostPlatform = platformOfHost(options.hostPlatform);
  const onWindows = hostPlatform === 'windows';
  const samePlatform = plans.length > 0 && plans[0]!.platform === hostPlatform;
  let host: HostFacts | undefined;
  let qwenTree: QwenTreeFact | undefined;
  let ripgrep: RipgrepFact | undefined;
  let qwenCliReal: string | undefined;
  let installHost: string[] | undefined;
  let caFiles: Map<string, CaFileFact> | undefined;
  let credentialAccess: CredentialAccessFacts | undefined;
  if (samePlatform) {
    const facts = new Map<string, HostStat | null>();
    for (const p of hostPaths(plans)) facts.set(p, await statFact(p));
    caFiles = new Map();
    // Absent or not a file: host.pins says so; only a regular file is read.
    for (const file of extraCaFiles(plans))
      if (facts.get(file)?.kind === 'file') caFiles.set(file, await caFileFact(file));
    for (const node of new Set(plans.map((p) => p.node))) {
      const fact = facts.get(node);
      if (fact?.kind === 'file' && (fact.mode & 0o111) !== 0) {
        const version = await nodeVersion(node);
        if (version !== undefined) facts.set(node, { ...fact, version });
      }
    }
    host = facts;
    if (!onWindows && plans[0] !== undefined) {
      const developers = developersOf(view);
      credentialAccess = {
        db: readAccountDb(developers?.users, developers?.groups),
        chains: new Map([...credentialFiles(view).keys()].map((file) => [file, pathChain(file)])),
      };
      // Judged by the resolved target: a link to Qwen's package (or to its wrapper) is what node runs.
      qwenCliReal = fsSync.existsSync(plans[0].qwenCli) ? realOr(plans[0].qwenCli) : undefined;
      qwenTree = walkQwenPackage(qwenCliReal ?? plans[0].qwenCli, fsSync, {
        adminUid: tree.manifest?.adminUid ?? 0,
      });
      ripgrep = ripgrepFact(qwenTree);
    }
  }
  let broker: BrokerHostFacts | undefined;
  let staleCredentials: { file: string; names: string[] }[] | undefined;
  if (tree.manifest !== undefined && isRealInstall(dir, plans, samePlatform)) {
    installHost = launcherHostProblems(view, dir, hostPlatform, host);
    staleCredentials = await staleCredentialFiles(dir, tree);
    // The broker's host checks need Linux's socket table: the broker itself runs nowhere else.
    const config = brokerConfigOf(view);
    if (options.hostPlatform === 'linux' && config !== undefined && typeof config !== 'string')
      broker = await brokerHostFacts(config, tree);
  }

  const openclawHost = await openclawHostFact(view, dir, hostPlatform);

  let smoke: SmokeResult[] | undefined;
  if (options.smoke && tree.manifest !== undefined) {
    const pinned = plans[0]?.node;
    const fact = pinned === undefined ? undefined : host?.get(pinned);
    const node = fact?.kind === 'file' && (fact.mode & 0o111) !== 0 ? pinned! : options.fallbackNode;
    const mcp = mcpSmokeProfile(tree, dir);
    smoke = await smokeRuntimes({
      runtimeDir: path.join(dir, 'runtime'),
      node,
      ...(mcp === undefined ? {} : { mcp }),
    });
  }

  const checks = verifyTree({
    tree,
    ...(deployment === undefined ? {} : { deployment }),
    ...(host === undefined ? {} : { host }),
    ...(caFiles === undefined ? {} : { caFiles: { facts: caFiles, now: options.now } }),
    ...(credentialAccess === undefined ? {} : { credentialAccess }),
    ...(qwenTree === undefined ? {} : { qwenTree }),
    ...(qwenCliReal === undefined ? {} : { qwenCliReal }),
    ...(ripgrep === undefined ? {} : { ripgrep }),
    ...(installHost === undefined ? {} : { installHost }),
    ...(broker === undefined ? {} : { broker }),
    ...(staleCredentials === undefined ? {} : { staleCredentials }),
    ...(smoke === undefined ? {} : { smoke }),
    ...(openclawHost === undefined ? {} : { openclawHost }),
    checkModes: !onWindows,
  });
  return buildReport(dir, options.deploymentFile ?? null, checks);
}
