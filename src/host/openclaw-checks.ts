// The host checks of the openclaw-recall profile, judged the same way by the launcher before every
// start and by `qwen-managed verify` on the real install: the checks every launch makes
// (install-checks.ts: the install's files against manifest.json, the pins, StrictModes up to /), then
// what OpenClaw adds — the pinned openclaw.mjs sits in the OpenClaw package of a supported version,
// the very version the profile was rendered for, the pinned Node is one that version runs on, and
// launch.json's argv is that version's managed argv (policies/openclaw/versions.json).
import type { Platform } from '../base/platform.js';
import type { InstallManifest } from '../contracts/install-manifest.js';
import {
  EXTRA_CA_VARIABLE,
  OPENCLAW_CONFIG_VARIABLE,
  OPENCLAW_PROFILE_FILES,
  profileRel,
} from '../contracts/layout.js';
import type { OpenclawLaunchPlan } from '../contracts/openclaw-launch.js';
import {
  type OpenclawVersionFacts,
  openclawVersionFacts,
  unsupportedNodeReason,
} from '../openclaw/versions.js';
import { lookupEnv } from '../policy/environment-names.js';
import { show } from '../policy/quote.js';
import {
  CA_FILE_FIX,
  credentialFilePins,
  type HostFs,
  installPinProblems,
  missingPinFix,
  type Pin,
  REPOSITORY_ROOT_FIX,
} from './install-checks.js';

/** The npm package the pinned openclaw.mjs must sit in. */
export const OPENCLAW_PACKAGE_NAME = 'openclaw';

export interface OpenclawHostInput {
  installDir: string;
  platform: Platform;
  manifest: InstallManifest;
  plan: OpenclawLaunchPlan;
  /** The very bytes the plan was parsed from. */
  planBytes: Uint8Array;
  externalContextActive: boolean;
  fs: HostFs;
  /** `<pinned node> --version`, or undefined when it cannot be run. */
  nodeVersion: string | undefined;
}

export interface OpenclawHostResult {
  problems: string[];
  /** The pinned OpenClaw package's version, when its package.json says it is OpenClaw. */
  openclawVersion?: string;
}

function pinsOf(plan: OpenclawLaunchPlan, active: boolean): Pin[] {
  const pins: Pin[] = [
    {
      what: 'OpenClaw node',
      path: plan.node,
      type: 'file',
      adminOwned: true,
      executable: true,
      missing: missingPinFix('Node 24', 'openclaw.node'),
    },
    {
      what: 'OpenClaw cli',
      path: plan.cli,
      type: 'file',
      adminOwned: true,
      missing: missingPinFix('OpenClaw (docs/openclaw.md)', 'openclaw.cli'),
    },
    {
      what: 'repository root',
      path: plan.cwd,
      type: 'directory',
      adminOwned: false,
      missing: REPOSITORY_ROOT_FIX,
    },
    {
      what: OPENCLAW_CONFIG_VARIABLE,
      path: lookupEnv(plan.environment.files, OPENCLAW_CONFIG_VARIABLE, plan.platform) ?? '',
      type: 'file',
      adminOwned: true,
    },
  ];
  const ca = lookupEnv(plan.environment.files, EXTRA_CA_VARIABLE, plan.platform);
  if (ca !== undefined)
    pins.push({
      what: EXTRA_CA_VARIABLE,
      path: ca,
      type: 'file',
      adminOwned: true,
      optional: true,
      readable: true,
      missing: CA_FILE_FIX,
    });
  pins.push(...credentialFilePins(plan, active));
  return pins;
}

function dirname(file: string): string {
  const cut = file.lastIndexOf('/');
  return cut <= 0 ? '/' : file.slice(0, cut);
}

/**
 * What OpenClaw adds to the pins: the package around `cli` (its real path) is OpenClaw of a supported
 * version and the one the plan was rendered for, the node runs that version, and the plan's argv is
 * its managed argv. One line per problem.
 */
export function openclawPackageProblems(
  plan: Pick<OpenclawLaunchPlan, 'node' | 'cli' | 'openclawVersion' | 'argv'>,
  cli: string,
  nodeVersion: string | undefined,
  fs: Pick<HostFs, 'readFileSync' | 'statSync'>,
): OpenclawHostResult {
  const problems: string[] = [];
  const packageJson = `${dirname(cli)}/package.json`;
  let version: string | undefined;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(fs.readFileSync(packageJson))) as {
      name?: unknown;
      version?: unknown;
    };
    if (parsed.name === OPENCLAW_PACKAGE_NAME && typeof parsed.version === 'string') version = parsed.version;
  } catch {
    // named below
  }
  if (version === undefined)
    problems.push(
      `OpenClaw cli ${show(plan.cli)} is not in the ${OPENCLAW_PACKAGE_NAME} package (no package.json named "${OPENCLAW_PACKAGE_NAME}" beside it); pin node_modules/openclaw/openclaw.mjs`,
    );
  const facts = version === undefined ? undefined : openclawVersionFacts(version);
  if (version !== undefined && facts === undefined)
    problems.push(
      `OpenClaw ${show(plan.cli)} is ${version}, which this toolkit does not support (supported: policies/openclaw/versions.json)`,
    );
  if (version !== undefined && version !== plan.openclawVersion)
    problems.push(
      `OpenClaw ${show(plan.cli)} is ${version}, but the profile was rendered for ${plan.openclawVersion}; re-render`,
    );
  const judged = facts ?? openclawVersionFacts(plan.openclawVersion);
  if (nodeVersion === undefined)
    problems.push(`OpenClaw node ${show(plan.node)} cannot be run (missing, not executable, or no version)`);
  else if (judged !== undefined) {
    const why = unsupportedNodeReason(judged, nodeVersion);
    if (why !== undefined) problems.push(`OpenClaw node ${show(plan.node)} ${why}`);
  }
  if (judged !== undefined) problems.push(...unfinishedInstallProblems(plan, dirname(cli), judged, fs));
  // The argv is data of the version: a plan that asks for anything else was not rendered for it.
  if (judged !== undefined && JSON.stringify(plan.argv) !== JSON.stringify(judged.managedArgv))
    problems.push(
      `the plan's OpenClaw argv ${JSON.stringify(plan.argv)} is not the managed argv of OpenClaw ${judged.version} (${JSON.stringify(judged.managedArgv)}); re-render`,
    );
  return { problems, ...(version === undefined ? {} : { openclawVersion: version }) };
}

/**
 * A package whose install scripts have not run (installed with --ignore-scripts): openclaw.mjs runs them
 * at its next start by writing into the package, which the developer a managed session runs as cannot
 * (measured on 2026.9.6: every developer's start ended "package lifecycle is incomplete … EACCES").
 */
function unfinishedInstallProblems(
  plan: Pick<OpenclawLaunchPlan, 'node' | 'cli'>,
  packageDir: string,
  facts: OpenclawVersionFacts,
  fs: Pick<HostFs, 'statSync'>,
): string[] {
  return facts.unfinishedInstallMarkers
    .map((rel) => `${packageDir}/${rel}`)
    .filter((marker) => {
      try {
        fs.statSync(marker);
        return true;
      } catch {
        return false;
      }
    })
    .map(
      (marker) =>
        `OpenClaw ${show(plan.cli)} was installed without its install scripts (${show(marker)} is there): OpenClaw runs them at its next start by writing into its package, which a developer cannot, so every start would end "package lifecycle is incomplete … permission denied (EACCES)" — as root, run ${show(plan.node)} ${show(plan.cli)} --version once (it completes them), or reinstall OpenClaw with its scripts enabled`,
    );
}

/** Every host problem of the openclaw-recall profile (empty: the launcher may start OpenClaw). */
export function openclawHostProblems(input: OpenclawHostInput): OpenclawHostResult {
  const { plan } = input;
  const { problems, realPaths } = installPinProblems({
    installDir: input.installDir,
    platform: input.platform,
    manifest: input.manifest,
    planRel: profileRel(plan.profile, OPENCLAW_PROFILE_FILES.launchPlan),
    planBytes: input.planBytes,
    planInstallDir: plan.installDir,
    pins: pinsOf(plan, input.externalContextActive),
    searchPath: plan.environment.PATH,
    fs: input.fs,
  });
  // Judged by what node runs: the package around the cli's real path.
  const pack = openclawPackageProblems(
    plan,
    realPaths.get(plan.cli) ?? plan.cli,
    input.nodeVersion,
    input.fs,
  );
  return {
    problems: [...problems, ...pack.problems],
    ...(pack.openclawVersion === undefined ? {} : { openclawVersion: pack.openclawVersion }),
  };
}
