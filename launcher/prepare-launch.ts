// The launcher's whole decision, pure: from the install directory, the profile, the caller's
// environment, the user and the terminal — through an injected file system, read-only — to exactly
// what runs (node, argv, environment, working directory), what is written before (the Qwen home and
// the launch's system-defaults layer) and what refuses. launcher/launch-qwen.ts executes it;
// `qwen-managed plan` prints it. Steps 2–5 of docs/contracts.md, "Launcher steps". One launcher for
// both agents: the openclaw-recall profile takes the same steps in prepare-openclaw.ts.
import { posix, win32 } from 'node:path';
import { type Platform, platformOfHost } from '../src/base/platform.js';
import {
  type AnyProfileKind,
  type CredentialSource,
  type LaunchPlan,
  OPENCLAW_PROFILE,
  type ProfileKind,
} from '../src/contracts/launch-plan.js';
import { type PINNED_FILE_VARIABLES, PROFILE_FILES, profileRel } from '../src/contracts/layout.js';
import { installPath } from '../src/host/install-checks.js';
import {
  ARGUMENT_POLICY,
  type ArgumentPolicy,
  ENVIRONMENT_POLICY,
  type EnvironmentPolicy,
} from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';
import { launchDefaultsSettings, refusalLine } from '../src/policy/repository.js';
import { pinnedQwenFacts } from '../src/qwen/versions.js';
import { isPlainObject, type JsonObject } from '../src/text/json.js';
import { type BrokerCheckDeps, brokerListeners, checkBroker } from './broker.js';
import { computeEnv, type EnvComputation, envRecord, REDACTED } from './env.js';
import { failure, type LaunchError, rolledBackNotice } from './messages.js';
import { loadPins, type PinsFs } from './pins.js';
import {
  type OpenclawLaunchDecision,
  prepareOpenclawLaunch,
  type SessionStoreReader,
} from './prepare-openclaw.js';
import { homePlatform, launchDefaultsPath, qwenHomePath } from './qwen-home.js';
import { sessionCredentials } from './read-credentials.js';
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

export { REDACTED };

export interface LaunchInput {
  /** The install directory (the launcher's: from its own real path; plan's: --dir). */
  installDir: string;
  kind: AnyProfileKind;
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
  /**
   * Reads OpenClaw's session database with the pinned Node (launch: every start of openclaw-recall);
   * without it the stored sessions are not checked.
   */
  openclawSessions?: SessionStoreReader;
  /** The lazily loaded project checks (runtime/launch-repository.js). */
  loadProject: RepositoryInput['loadProject'];
  /**
   * How the credential broker of a brokered plan is checked (launch only): its listeners' owners and
   * health. Required to launch a brokered profile; `plan` shows the listeners without checking.
   */
  broker?: BrokerCheckDeps;
  argumentPolicy?: ArgumentPolicy;
  environmentPolicy?: EnvironmentPolicy;
}

/** What every host's decision holds: what runs, with what, and what refuses. */
export interface DecisionCommon {
  /** The platform the plan was rendered for (the launcher refuses any other). */
  platform: Platform;
  /** False when the manifest marks the profile rolled back: it starts without external context. */
  externalContextActive: boolean;
  /** What runs: the pinned node on `[cli, ...managed argv]`, from the repository root. */
  command: QwenCommand;
  /** Every variable with its source, and what the plan asked for that is kept out. */
  environment: EnvComputation;
  /** The credentials this launch delivers, by name, with where each comes from. */
  credentials: Array<[string, CredentialSource]>;
  /** Inherited credentials absent from the caller's environment (plan: the launcher would refuse). */
  missingCredentials: string[];
  /** What in the repository, the home or the state directory refuses the launch, one line each. */
  refused: string[];
  /** The line printed before a rolled-back profile starts. */
  notice?: string;
}

/** The launcher's decision: Qwen's for its three profiles, OpenClaw's for openclaw-recall. */
export type LaunchDecision = QwenLaunchDecision | OpenclawLaunchDecision;

export interface QwenLaunchDecision extends DecisionCommon {
  host: 'qwen';
  kind: ProfileKind;
  plan: LaunchPlan;
  /** The per-user, per-profile QWEN_HOME, created 0700 before Qwen starts. */
  qwenHome: string;
  /** What a new QWEN_HOME gets before Qwen first starts in it (the pinned version's `qwenHomeSeed`). */
  qwenHomeSeed: Readonly<Record<string, string>>;
  /** The pinned Qwen's settings format, for a QWEN_HOME settings.json written when missing. */
  qwenSettingsVersion: number;
  /**
   * The launch's system-defaults layer, written (0600, atomically) before Qwen starts: the admin's
   * system defaults plus the names the repository check keeps out. Its content is made only to
   * launch (plan may read a staged render, whose admin files are not in place yet).
   */
  launchDefaults: { file: string; content?: string };
  repository: RepositoryReport;
  /**
   * The credential broker this session talks to (a brokered plan): no credential is read, the
   * provider's variable holds `key`, and these listeners were checked (launch) before anything ran.
   */
  broker?: { user: string; key: string; listeners: Array<{ name: string; port: number }> };
}

/** The decision; throws a LaunchError for a pin, the terminal or a credential the launch cannot use. */
export async function prepareLaunch(input: LaunchInput): Promise<LaunchDecision> {
  // One launcher, each host its own steps: the same contract, OpenClaw's pins and environment.
  if (input.kind === OPENCLAW_PROFILE) return prepareOpenclawLaunch(input);
  return prepareQwenLaunch({ ...input, kind: input.kind });
}

async function prepareQwenLaunch(input: LaunchInput & { kind: ProfileKind }): Promise<QwenLaunchDecision> {
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
  // Step 3b: a brokered profile's broker runs, is the broker (root or its user holds each port), and
  // lets this user in — one line otherwise, instead of Qwen's ~109 s retry of a refused connection.
  const broker = plan.broker === undefined ? undefined : brokerListeners(plan, externalContextActive);
  if (purpose === 'launch' && plan.broker !== undefined) {
    if (input.broker === undefined)
      throw failure(
        'this profile uses the credential broker, which the launcher was not given a way to check',
      );
    await checkBroker(plan, externalContextActive, input.broker);
  }
  // Step 4: environment. HOME and the Qwen home come from the passwd entry, not from $HOME.
  const layout = platform === 'windows' ? 'win32' : homePlatform(input.hostPlatform);
  const qwenHome = qwenHomePath(layout, input.home, plan.installId, kind);
  const launchDefaults = launchDefaultsPath(layout, qwenHome);
  const credentials = sessionCredentials(plan, purpose, {
    externalContextActive,
    callerEnv: input.callerEnv,
    platform,
    readFile: (file) => fs.readFileSync(file, 'utf8'),
  });
  const environment = computeEnv(input.callerEnv, plan, policy, {
    home: input.home,
    qwenHome,
    credentials: credentials.values,
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
      ? launchDefaultsSettings(adminFile('QWEN_CODE_SYSTEM_DEFAULTS_PATH'), repository.excluded, facts)
      : undefined;
  return {
    host: 'qwen',
    kind,
    plan,
    platform,
    externalContextActive,
    // Step 5 and 6: the repository root and the pinned node.
    command: { node: plan.node, argv: pins.argv, env, cwd: plan.cwd },
    environment,
    credentials: credentials.routed,
    missingCredentials: credentials.missing,
    qwenHome,
    qwenHomeSeed: facts.qwenHomeSeed,
    qwenSettingsVersion: facts.settingsVersion,
    launchDefaults: {
      file: launchDefaults,
      ...(defaults === undefined ? {} : { content: `${JSON.stringify(defaults, null, 2)}\n` }),
    },
    repository,
    refused: repository.refused.map(refusalLine),
    ...(externalContextActive ? {} : { notice: rolledBackNotice(kind) }),
    ...(broker === undefined ? {} : { broker }),
  };
}

/** The refusal the launcher ends with when the repository or the home refuses, else undefined. */
export function repositoryRefusal(decision: LaunchDecision): LaunchError | undefined {
  if (decision.refused.length === 0) return undefined;
  return failure(
    ...decision.refused,
    `${decision.refused.length} thing(s) in ${decision.host === 'qwen' ? 'the repository or your home' : 'your OpenClaw state directory or the repository'} would change the managed ${decision.kind} session; nothing was started`,
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
