// The launcher's whole decision, pure: from the install directory, the profile, the caller's
// environment, the user and the terminal — through an injected file system, read-only — to exactly
// what runs (node, argv, environment, working directory), what is written before (the Qwen home and
// the launch's system-defaults layer) and what refuses. launcher/launch-qwen.ts executes it;
// `qwen-managed plan` prints it. Steps 2–5 of docs/contracts.md, "Launcher steps".
import { posix, win32 } from 'node:path';
import { type Platform, platformOfHost } from '../src/base/platform.js';
import type { CredentialSource, LaunchPlan, ProfileKind } from '../src/contracts/launch-plan.js';
import { type PINNED_FILE_VARIABLES, PROFILE_FILES, profileRel } from '../src/contracts/layout.js';
import { installPath } from '../src/host/install-checks.js';
import { lookupEnv } from '../src/policy/environment-names.js';
import {
  ARGUMENT_POLICY,
  type ArgumentPolicy,
  ENVIRONMENT_POLICY,
  type EnvironmentPolicy,
} from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';
import { launchDefaultsSettings, refusalLine } from '../src/policy/repository.js';
import { routedCredentials } from '../src/policy/routed-credentials.js';
import { pinnedQwenFacts } from '../src/qwen/versions.js';
import { isPlainObject, type JsonObject } from '../src/text/json.js';
import { computeEnv, type EnvComputation, envRecord } from './env.js';
import { failure, type LaunchError, rolledBackNotice } from './messages.js';
import { loadPins, type PinsFs } from './pins.js';
import { homePlatform, launchDefaultsPath, qwenHomePath } from './qwen-home.js';
import { readCredentials } from './read-credentials.js';
import {
  inspectRepository,
  type RepositoryFs,
  type RepositoryInput,
  type RepositoryReport,
} from './repository.js';
import type { QwenCommand } from './run.js';
import { checkTerminal, type TerminalState } from './terminal.js';

/** Everything the decision reads through (node:fs has it all). */
export type LaunchFs = PinsFs & RepositoryFs;

/** Stands in for every credential value when the decision is only shown (`plan`). */
export const REDACTED = '<redacted>';

export interface LaunchInput {
  /** The install directory (the launcher's: from its own real path; plan's: --dir). */
  installDir: string;
  kind: ProfileKind;
  /** `process.platform` of the machine deciding: the file layout of the home and of the install. */
  hostPlatform: NodeJS.Platform;
  /**
   * `launch`: every pin checked, the terminal checked, credential values read. `plan`: the files as
   * they are (also a staged render), nothing checked that only the real launch can, values redacted.
   */
  purpose: 'launch' | 'plan';
  fs: LaunchFs;
  /** The caller's environment. */
  callerEnv: Readonly<Record<string, string | undefined>>;
  /** From the user's passwd entry, never $HOME. */
  home: string;
  /** Checked when given (the launcher always gives it). */
  terminal?: TerminalState;
  /** `<node> --version` of the pinned node (launch only: judged against Qwen's engines). */
  nodeVersionOf?: (node: string) => string | undefined;
  /** The lazily loaded project checks (runtime/launch-repository.js). */
  loadProject: RepositoryInput['loadProject'];
  argumentPolicy?: ArgumentPolicy;
  environmentPolicy?: EnvironmentPolicy;
}

export interface LaunchDecision {
  kind: ProfileKind;
  plan: LaunchPlan;
  /** The platform the plan was rendered for (the launcher refuses any other). */
  platform: Platform;
  /** False when the manifest marks the profile rolled back: it starts without external context. */
  externalContextActive: boolean;
  /** What runs: the pinned node on `[qwenCli, ...managed argv]`, from the repository root. */
  command: QwenCommand;
  /** Every variable with its source, and what the plan asked for that is kept out. */
  environment: EnvComputation;
  /** The credentials this launch delivers, by name, with where each comes from. */
  credentials: Array<[string, CredentialSource]>;
  /** Inherited credentials absent from the caller's environment (plan: the launcher would refuse). */
  missingCredentials: string[];
  /** The per-user, per-profile QWEN_HOME, created 0700 before Qwen starts. */
  qwenHome: string;
  /**
   * The launch's system-defaults layer, written (0600, atomically) before Qwen starts: the admin's
   * system defaults plus the names the repository check keeps out. Its content is made only to
   * launch (plan may read a staged render, whose admin files are not in place yet).
   */
  launchDefaults: { file: string; content?: string };
  repository: RepositoryReport;
  /** What in the repository or the home refuses the launch, one line each: nothing is started. */
  refused: string[];
  /** The line printed before a rolled-back profile starts. */
  notice?: string;
}

/** The decision; throws a LaunchError for a pin, the terminal or a credential the launch cannot use. */
export async function prepareLaunch(input: LaunchInput): Promise<LaunchDecision> {
  const { fs, kind, purpose } = input;
  const localPlatform = platformOfHost(input.hostPlatform);
  const policy = input.environmentPolicy ?? ENVIRONMENT_POLICY;
  // Step 2: pins.
  const pins = loadPins({
    installDir: input.installDir,
    kind,
    platform: localPlatform,
    fs,
    argumentPolicy: input.argumentPolicy ?? ARGUMENT_POLICY,
    checkHost: purpose === 'launch',
    ...(input.nodeVersionOf === undefined ? {} : { nodeVersionOf: input.nodeVersionOf }),
  });
  const { plan, externalContextActive } = pins;
  const platform = plan.platform;
  // Step 3: terminal.
  if (input.terminal !== undefined) checkTerminal(input.terminal);
  // Step 4: environment. HOME and the Qwen home come from the passwd entry, not from $HOME.
  const layout = platform === 'windows' ? 'win32' : homePlatform(input.hostPlatform);
  const qwenHome = qwenHomePath(layout, input.home, plan.installId, kind);
  const launchDefaults = launchDefaultsPath(layout, qwenHome);
  const routed = routedCredentials(plan, externalContextActive, platform);
  const credentials =
    purpose === 'launch'
      ? readCredentials(plan, {
          externalContextActive,
          callerEnv: input.callerEnv,
          platform,
          readFile: (file) => fs.readFileSync(file, 'utf8'),
        })
      : Object.fromEntries(routed.map(([name]) => [name, REDACTED]));
  const environment = computeEnv(input.callerEnv, plan, policy, {
    home: input.home,
    qwenHome,
    credentials,
    platform,
    externalContextActive,
    launchDefaults,
  });
  const env = envRecord(environment.entries);
  // Step 4b: what the repository and the user's home would carry into Qwen, judged by the pinned
  // package's own version (a stand-in cli.js has none: the default version's facts).
  const facts = pinnedQwenFacts(pins.qwenVersion);
  const adminFile = (variable: keyof typeof PINNED_FILE_VARIABLES) =>
    readAdminJson(fs, plan.environment.files[variable]!);
  const repository = await inspectRepository({
    plan,
    env,
    home: input.home,
    qwenHome,
    platform,
    // From the tree given: the same pinned file for a launch, and a staged render's own for plan
    // (whose admin files are not at the paths launch.json names yet).
    systemSettings: () =>
      readAdminJson(
        fs,
        installPath(input.installDir, profileRel(kind, PROFILE_FILES.systemSettings), localPlatform),
      ),
    qwenVersion: facts.version,
    fs,
    // The plan's own path rules, never the host's: plan may show a Windows plan.
    path: platform === 'windows' ? win32 : posix,
    loadProject: input.loadProject,
  });
  const defaults =
    purpose === 'launch'
      ? launchDefaultsSettings(
          adminFile('QWEN_CODE_SYSTEM_DEFAULTS_PATH'),
          repository.excluded,
          facts.defaultExcludedEnvVars,
        )
      : undefined;
  return {
    kind,
    plan,
    platform,
    externalContextActive,
    // Step 5 and 6: the repository root and the pinned node.
    command: { node: plan.node, argv: pins.argv, env, cwd: plan.cwd },
    environment,
    credentials: routed,
    missingCredentials: routed
      .filter(([name, source]) => 'inherit' in source && !lookupEnv(input.callerEnv, name, platform))
      .map(([name]) => name),
    qwenHome,
    launchDefaults: {
      file: launchDefaults,
      ...(defaults === undefined ? {} : { content: `${JSON.stringify(defaults, null, 2)}\n` }),
    },
    repository,
    refused: repository.refused.map(refusalLine),
    ...(externalContextActive ? {} : { notice: rolledBackNotice(kind) }),
  };
}

/** The refusal the launcher ends with when the repository or the home refuses, else undefined. */
export function repositoryRefusal(decision: LaunchDecision): LaunchError | undefined {
  if (decision.refused.length === 0) return undefined;
  return failure(
    ...decision.refused,
    `${decision.refused.length} thing(s) in the repository or your home would change the managed ${decision.kind} session; nothing was started`,
  );
}

/** A pinned admin JSON file (checksummed by the pins), as an object. */
function readAdminJson(fs: LaunchFs, file: string): JsonObject {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isPlainObject(value)) return value;
  } catch {
    // reported below
  }
  throw failure(`${show(file)} is not a JSON object; re-render the deployment`);
}
