// prepareLaunch()'s OpenClaw steps (docs/openclaw.md, "The managed session"): the same launcher
// contract as Qwen's — pins, terminal, an environment built from nothing, refusals, the repository
// root, execve — for `<pinned Node 24> <openclaw.mjs> <the version's managed argv>`. Pure over the
// injected file system, read-only; launch-qwen.ts executes the decision.
import type { Platform } from '../src/base/platform.js';
import { OPENCLAW_PROFILE } from '../src/contracts/launch-plan.js';
import { PROFILE_FILES, profileRel } from '../src/contracts/layout.js';
import type { OpenclawLaunchPlan } from '../src/contracts/openclaw-launch.js';
import { installFileProblems } from '../src/host/install-checks.js';
import { openclawHostProblems } from '../src/host/openclaw-checks.js';
import { type OpenclawVersionFacts, openclawVersionFacts } from '../src/openclaw/versions.js';
import { ENVIRONMENT_POLICY } from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';
import { REPOSITORY_POLICY } from '../src/policy/repository.js';
import { NO_ENTRY } from '../src/policy/repository-path.js';
import { validateOpenclawLaunchPlan } from '../src/startup/validators/openclaw-launch-plan.js';
import { envRecord } from './env.js';
import { checkPlanInstallDir } from './install-dir.js';
import { failure, rolledBackNotice } from './messages.js';
import { computeOpenclawEnv } from './openclaw-env.js';
import { NotDeployedError, readManifest, readProfilePlan } from './pins.js';
import type { DecisionCommon, LaunchFs, LaunchInput } from './prepare-launch.js';
import { homePlatform, qwenHomePath } from './qwen-home.js';
import { sessionCredentials } from './read-credentials.js';
import { checkTerminal } from './terminal.js';

export interface OpenclawLaunchDecision extends DecisionCommon {
  host: 'openclaw';
  kind: typeof OPENCLAW_PROFILE;
  plan: OpenclawLaunchPlan;
  /** The OpenClaw version the profile was rendered for, whose facts decided (checked on the host at launch). */
  facts: OpenclawVersionFacts;
  /**
   * The per-user, per-install, per-profile OPENCLAW_STATE_DIR (sessions, transcripts, OpenClaw's
   * databases): the Qwen home's scheme, created 0700 before OpenClaw starts.
   */
  stateDir: string;
  /** The line the launcher prints before OpenClaw waits for the message on the terminal. */
  prompt: string;
}

/**
 * What a developer reads before OpenClaw waits: one turn per start, the message ended by Ctrl+D.
 * Measured on 2026.9.6: what is typed before OpenClaw prints its banner is lost (it resets the
 * terminal as it starts), so the line says when to type.
 */
export const OPENCLAW_PROMPT =
  'OpenClaw (openclaw-recall): when OpenClaw has printed its banner, type your message, then press Ctrl+D on an empty line to send it. One turn per start; the conversation continues at the next start.';

/** Entries of the state directory the pinned version would read to change the session: one line each. */
export function stateDirRefusals(
  stateDir: string,
  facts: OpenclawVersionFacts,
  fs: Pick<LaunchFs, 'lstatSync'>,
): string[] {
  const refused: string[] = [];
  for (const [name, why] of Object.entries(facts.refusedInStateDir)) {
    const entry = `${stateDir}/${name}`;
    try {
      // Whatever it is (a file, a link, even a dangling one): OpenClaw would look there.
      fs.lstatSync(entry);
    } catch {
      continue;
    }
    refused.push(`${show(entry)}: ${why} — remove it`);
  }
  return refused;
}

/**
 * The agent's workspace, `<repositoryRoot>/<agent id>` (measured on 2026.9.6: OpenClaw makes it at
 * the first turn, `main/` for `--agent main`), when the repository ships it as a link or a
 * non-directory. Measured: a repository whose `main` linked to a directory outside it made that
 * directory OpenClaw's workspace, file-tool sandbox root included — the model wrote there and read a
 * file there back into its context, and OpenClaw wrote its bootstrap files and `.git` there.
 */
export function workspaceRefusals(
  plan: OpenclawLaunchPlan,
  fs: Pick<LaunchFs, 'lstatSync' | 'readdirSync'>,
): string[] {
  const at = plan.argv.indexOf('--agent');
  const agent = at < 0 ? undefined : plan.argv[at + 1];
  if (agent === undefined) return [];
  const entry = `${plan.cwd}/${agent}`;
  let stat: { isDirectory(): boolean; isSymbolicLink(): boolean } | undefined;
  try {
    stat = fs.lstatSync(entry);
  } catch {
    return [];
  }
  if (stat === undefined) return [];
  if (stat.isDirectory() && !stat.isSymbolicLink()) return specialEntries(entry, fs);
  return [
    `${show(entry)}: is the OpenClaw agent's workspace and its file tools' sandbox root, but the repository has it as ${stat.isSymbolicLink() ? 'a link' : 'something other than a directory'}: OpenClaw would work wherever it points — remove it from the repository, or make it a directory`,
  ];
}

/**
 * A link, FIFO, socket or device anywhere in the workspace (links not followed, at most the
 * repository policy's maxWalkEntries entries). OpenClaw opens what it reads there with a blocking
 * read — its bootstrap files (`AGENTS.md`, `SOUL.md`, …) and one level down `.openclaw/settings.json`
 * (measured on 2026.9.6: a FIFO at either and the turn waited for good, before the model was asked) —
 * and it follows a link to `.openclaw/` or to its `settings.json` (measured: `main/.openclaw` linked
 * out of the repository, and OpenClaw wrote `settings.json.lock` there and waited on a FIFO
 * `settings.json` there; `settings.json` linked to that FIFO, the same wait); a link elsewhere it
 * refuses itself, so the managed session needs none.
 */
function specialEntries(workspace: string, fs: Pick<LaunchFs, 'lstatSync' | 'readdirSync'>): string[] {
  const limit = REPOSITORY_POLICY.paths.maxWalkEntries;
  const refused: string[] = [];
  const queue = [workspace];
  let entries = 0;
  while (queue.length > 0) {
    const dir = queue.shift()!;
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (++entries > limit)
        return [
          ...refused,
          `${show(workspace)}: is the OpenClaw agent's workspace and holds more than ${limit} entries, so it is not checked for a link, FIFO, socket or device OpenClaw would follow or wait on — remove what the agent does not need from it`,
        ];
      const file = `${dir}/${name}`;
      const stat = fs.lstatSync(file, NO_ENTRY);
      if (stat === undefined || stat.isFile()) continue;
      if (stat.isDirectory()) queue.push(file);
      else if (stat.isSymbolicLink())
        refused.push(
          `${show(file)}: is a link in the OpenClaw agent's workspace: OpenClaw follows a link to its .openclaw/ directory or settings.json wherever it points, writing there, and waits on a FIFO it reaches — remove it from the repository (copy what it points to instead)`,
        );
      else
        refused.push(
          `${show(file)}: is in the OpenClaw agent's workspace and is not a file, a directory or a link (a FIFO, socket or device): OpenClaw would wait on it for good as it reads the workspace's files — remove it from the repository`,
        );
    }
  }
  return refused;
}

function pinnedPlan(
  input: LaunchInput,
  platform: Platform,
): {
  plan: OpenclawLaunchPlan;
  bytes: Uint8Array;
  file: string;
  manifest: ReturnType<typeof readManifest>;
  active: boolean;
} {
  const { fs, installDir } = input;
  const manifest = readManifest(fs, installDir, platform);
  const state = manifest.profiles[OPENCLAW_PROFILE];
  if (state === undefined)
    throw new NotDeployedError(OPENCLAW_PROFILE, installDir, Object.keys(manifest.profiles));
  const read = readProfilePlan(fs, installDir, OPENCLAW_PROFILE, platform, validateOpenclawLaunchPlan);
  return { ...read, manifest, active: state.state === 'active' };
}

/** The OpenClaw launch, decided; throws a LaunchError for a pin, the terminal or a credential. */
export function prepareOpenclawLaunch(input: LaunchInput): OpenclawLaunchDecision {
  const { fs, purpose } = input;
  const localPlatform: Platform = input.hostPlatform === 'win32' ? 'windows' : 'posix';
  const policy = input.environmentPolicy ?? ENVIRONMENT_POLICY;
  // Step 2: pins — the checks every launch makes, then OpenClaw's package, version, Node and argv.
  const { plan, bytes, file, manifest, active } = pinnedPlan(input, localPlatform);
  const facts = openclawVersionFacts(plan.openclawVersion);
  if (facts === undefined)
    throw failure(
      `${show(file)} was rendered for OpenClaw ${plan.openclawVersion}, which this toolkit does not support; re-render`,
    );
  if (purpose === 'launch') {
    if (plan.platform !== localPlatform)
      throw failure(`${show(file)} was rendered for ${plan.platform}, not ${localPlatform}; re-render`);
    checkPlanInstallDir(plan.installDir, input.installDir, fs);
    const { problems } = openclawHostProblems({
      installDir: input.installDir,
      platform: localPlatform,
      manifest,
      plan,
      planBytes: bytes,
      externalContextActive: active,
      fs,
      nodeVersion: input.nodeVersionOf?.(plan.node),
    });
    if (problems.length > 0) throw failure(...problems);
  } else {
    // plan: a tree whose files are not the ones render wrote is refused by the launcher first.
    const { problems } = installFileProblems({
      installDir: input.installDir,
      platform: localPlatform,
      manifest,
      planRel: profileRel(OPENCLAW_PROFILE, PROFILE_FILES.launchPlan),
      planBytes: bytes,
      fs,
    });
    if (problems.length > 0) throw failure(...problems);
  }
  // Step 3: terminal.
  if (input.terminal !== undefined) checkTerminal(input.terminal, 'OpenClaw');
  // Step 4: environment. HOME and the state directory come from the passwd entry, not from $HOME.
  const stateDir = qwenHomePath(
    homePlatform(input.hostPlatform),
    input.home,
    plan.installId,
    OPENCLAW_PROFILE,
  );
  const credentials = sessionCredentials(plan, purpose, {
    externalContextActive: active,
    callerEnv: input.callerEnv,
    platform: plan.platform,
    readFile: (path) => fs.readFileSync(path, 'utf8'),
  });
  const environment = computeOpenclawEnv(input.callerEnv, plan, policy, {
    home: input.home,
    stateDir,
    credentials: credentials.values,
    platform: plan.platform,
    externalContextActive: active,
    versionEnvironment: facts.environment,
  });
  return {
    host: 'openclaw',
    kind: OPENCLAW_PROFILE,
    plan,
    facts,
    platform: plan.platform,
    externalContextActive: active,
    // Steps 5 and 6: the repository root and the pinned Node 24 on openclaw.mjs.
    command: {
      node: plan.node,
      argv: [plan.cli, ...plan.argv],
      env: envRecord(environment.entries),
      cwd: plan.cwd,
    },
    environment,
    credentials: credentials.routed,
    missingCredentials: credentials.missing,
    stateDir,
    // Step 4b: what in the state directory, or the agent's workspace in the repository, would change the session.
    refused: [...stateDirRefusals(stateDir, facts, fs), ...workspaceRefusals(plan, fs)],
    prompt: OPENCLAW_PROMPT,
    ...(active ? {} : { notice: rolledBackNotice(OPENCLAW_PROFILE, 'OpenClaw') }),
  };
}
