// Step 2: the pins. Loads `manifest.json` and `profiles/<kind>/launch.json` with the shared schemas,
// then checks everything the launch will use with the host checks verify shares
// (src/host/install-checks.ts) and reports every failure at once, one line each.
import { errorCode } from '../src/base/errors.js';
import type { Platform } from '../src/base/platform.js';
import type { Issue, Validation } from '../src/base/validation.js';
import { type InstallManifest, MANIFEST_FILE } from '../src/contracts/install-manifest.js';
import type { AnyProfileKind, LaunchPlan, ProfileKind } from '../src/contracts/launch-plan.js';
import { PROFILE_FILES, profileRel } from '../src/contracts/layout.js';
import {
  type HostFs,
  installFileProblems,
  installHostProblems,
  installPath,
} from '../src/host/install-checks.js';
import { qwenPackageVersion } from '../src/host/qwen-package.js';
import { ARGUMENT_POLICY, type ArgumentPolicy } from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';
import { validateInstallManifest } from '../src/startup/validators/install-manifest.js';
import { validateLaunchPlan } from '../src/startup/validators/launch-plan.js';
import { buildArgv } from './argv.js';
import { checkPlanInstallDir, type RealpathFs } from './install-dir.js';
import { failure, LAUNCH_EXIT, LaunchError } from './messages.js';

export interface PinsFs extends HostFs, RealpathFs {}

export interface PinsInput {
  /** The install directory found from the launcher's own real path. */
  installDir: string;
  kind: ProfileKind;
  platform: Platform;
  fs: PinsFs;
  argumentPolicy?: ArgumentPolicy;
  /**
   * False for `qwen-managed plan`, which may read a staged render (`--out`) or another platform's
   * plan: what the files say, without checking where the tree lies, the host, owners and modes.
   */
  checkHost?: boolean;
  /** `<node> --version` of the pinned node (judged against the Qwen package's engines), or undefined. */
  nodeVersionOf?: (node: string) => string | undefined;
}

export interface Pins {
  plan: LaunchPlan;
  manifest: InstallManifest;
  /** False when the manifest marks the profile rolled back: it starts without external context. */
  externalContextActive: boolean;
  /** What follows the node executable: `[qwenCli, ...managed argv]`, policy-checked. */
  argv: string[];
  /** The pinned Qwen package's version, when cli.js sits in the Qwen package (checked supported). */
  qwenVersion?: string;
}

function launchPlanRel(kind: AnyProfileKind): string {
  return profileRel(kind, PROFILE_FILES.launchPlan);
}

function describeIssue(issue: Issue): string {
  const at = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') return `${at}: unknown key(s) ${(issue.keys ?? []).join(', ')}`;
  if (issue.expected !== undefined) return `${at}: expected ${issue.expected}`;
  return `${at}: ${issue.code.replaceAll('_', ' ')}`;
}

/** All that reading manifest.json or launch.json needs (`qwen-managed plan` passes no more). */
type JsonFileFs = Pick<PinsFs, 'readFileSync'>;

/**
 * Reads a file render wrote and checks it with the validator generated from its zod schema (zod's
 * answer, without loading zod at every start).
 */
export function readJson<T>(
  fs: JsonFileFs,
  file: string,
  validate: (value: unknown) => Validation<T>,
): { value: T; bytes: Uint8Array } {
  const fix = 're-render the deployment';
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    const code = errorCode(error);
    // Permissions, not content: a re-render would write the same modes again.
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'every install file must be readable by the developers; ask your administrator (chmod a+r, and a+x on its directories)'
        : fix;
    throw failure(`cannot read ${show(file)} (${code}); ${why}`);
  }
  let data: unknown;
  // The bytes as verify reads them: a byte order mark is kept (TextDecoder drops one by default), so
  // a file verify calls invalid JSON is never one the launcher starts from.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  try {
    data = JSON.parse(text);
  } catch {
    const bom = text.startsWith('\uFEFF')
      ? ' (it starts with a byte order mark, which render never writes)'
      : '';
    throw failure(`${show(file)} is not valid JSON${bom}; ${fix}`);
  }
  const checked = validate(data);
  if (!checked.ok) {
    const shown = checked.issues.slice(0, 5).map(describeIssue).join('; ');
    throw failure(`${show(file)} does not match its schema (${shown}); ${fix}`);
  }
  return { value: checked.value, bytes };
}

export function readManifest(fs: JsonFileFs, installDir: string, platform: Platform): InstallManifest {
  return readJson(fs, installPath(installDir, MANIFEST_FILE, platform), validateInstallManifest).value;
}

/** The profile is not in the manifest: a usage error of the launcher, an input error of `plan`. */
export class NotDeployedError extends LaunchError {
  constructor(
    readonly kind: AnyProfileKind,
    readonly installDir: string,
    readonly deployed: readonly string[],
  ) {
    super(LAUNCH_EXIT.usage, [
      `profile ${show(kind)} is not deployed in ${show(installDir)} (deployed: ${deployed.join(', ') || 'none'})`,
    ]);
  }
}

function nodeVersion(input: PinsInput, node: string): { nodeVersion?: string } {
  const version = input.nodeVersionOf?.(node);
  return version === undefined ? {} : { nodeVersion: version };
}

/** The plan file of a profile: read, schema-checked, its own profile's, with the bytes it was parsed from. */
export function readProfilePlan<T extends { profile: string }>(
  fs: JsonFileFs,
  installDir: string,
  kind: AnyProfileKind,
  platform: Platform,
  validate: (value: unknown) => Validation<T>,
): { plan: T; bytes: Uint8Array; file: string } {
  const file = installPath(installDir, launchPlanRel(kind), platform);
  const { value, bytes } = readJson(fs, file, validate);
  if (value.profile !== kind)
    throw failure(`${show(file)} is the plan of profile ${show(value.profile)}; re-render`);
  return { plan: value, bytes, file };
}

/** Loads and checks everything step 2 pins; throws a LaunchError listing every failure. */
export function loadPins(input: PinsInput): Pins {
  const { installDir, kind, platform, fs } = input;
  const policy = input.argumentPolicy ?? ARGUMENT_POLICY;
  const manifest = readManifest(fs, installDir, platform);
  const state = manifest.profiles[kind];
  if (state === undefined) throw new NotDeployedError(kind, installDir, Object.keys(manifest.profiles));
  const {
    plan,
    bytes: planBytes,
    file: planFile,
  } = readProfilePlan(fs, installDir, kind, platform, validateLaunchPlan);
  const externalContextActive = state.state === 'active';
  const pins = (argv: string[], qwenVersion: string | undefined): Pins => ({
    plan,
    manifest,
    externalContextActive,
    argv,
    ...(qwenVersion === undefined ? {} : { qwenVersion }),
  });
  if (input.checkHost === false) {
    // The launcher refuses a tree whose files are not the ones render wrote before anything else, so
    // plan does too: what it would print is otherwise a launch that never happens.
    const files = installFileProblems({
      installDir,
      platform,
      manifest,
      planRel: launchPlanRel(kind),
      planBytes,
      fs,
    });
    if (files.problems.length > 0) throw failure(...files.problems);
    // The version of the package cli.js sits in, read the way render reads it (no walk, no checks).
    const qwenVersion =
      plan.platform === 'posix'
        ? qwenPackageVersion(plan.qwenCli, {
            readFileSync: (file) => new TextDecoder().decode(fs.readFileSync(file)),
          })
        : undefined;
    return pins(buildArgv(plan, { externalContextActive }, policy), qwenVersion);
  }
  if (plan.platform !== platform) {
    throw failure(
      `${show(planFile)} was rendered for ${plan.platform}, not ${platform}; re-render for this platform`,
    );
  }
  checkPlanInstallDir(plan.installDir, installDir, fs);
  const argv = buildArgv(plan, { externalContextActive }, policy);

  const { problems, qwenVersion } = installHostProblems({
    installDir,
    kind,
    platform,
    manifest,
    plan,
    planBytes,
    externalContextActive,
    argv,
    policy,
    fs,
    ...nodeVersion(input, plan.node),
  });
  if (problems.length > 0) throw failure(...problems);
  return pins(argv, qwenVersion);
}
