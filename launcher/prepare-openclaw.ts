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
import { show, terminalText } from '../src/policy/quote.js';
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

/** The agent the managed argv runs (`--agent <id>`). */
function managedAgent(plan: OpenclawLaunchPlan): string | undefined {
  const at = plan.argv.indexOf('--agent');
  return at < 0 ? undefined : plan.argv[at + 1];
}

/**
 * What the launcher learns from OpenClaw's session database: every stored entry that holds a refused
 * key, with those keys' values — or why the database could not be read.
 */
export type SessionStoreRead =
  | { entries: Array<{ key: string; refused: Record<string, unknown> }> }
  | { error: string };

/** Reads the session database at `database` with the pinned Node for entries holding any of `keys`. */
export type SessionStoreReader = (
  node: string,
  database: string,
  keys: readonly string[],
) => SessionStoreRead;

/**
 * The program the pinned Node 24 runs on the database (`node -e <it> <database> <key>…`): read-only,
 * every row of `session_nodes` whatever its validity (OpenClaw repairs or refuses an invalid row
 * itself), one JSON array of `[session key, {refused key: value}]` on stdout.
 */
export const SESSION_STORE_READER = `'use strict';
const [database, ...keys] = process.argv.slice(1);
const db = new (require('node:sqlite').DatabaseSync)(database, { readOnly: true });
const out = [];
for (const row of db.prepare('SELECT session_key, entry_json FROM session_nodes').iterate()) {
  let entry;
  try { entry = JSON.parse(row.entry_json); } catch { continue; }
  if (entry === null || typeof entry !== 'object') continue;
  const refused = {};
  for (const key of keys) if (Object.hasOwn(entry, key) && entry[key] !== null) refused[key] = entry[key];
  if (Object.keys(refused).length > 0) out.push([String(row.session_key), refused]);
}
process.stdout.write(JSON.stringify(out));
`;

/** SESSION_STORE_READER's stdout, checked: anything but its shape is a read that failed. */
export function parseSessionStoreOutput(stdout: string): SessionStoreRead {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return { error: 'its reader printed no JSON' };
  }
  const isEntry = (row: unknown): row is [string, Record<string, unknown>] =>
    Array.isArray(row) &&
    row.length === 2 &&
    typeof row[0] === 'string' &&
    typeof row[1] === 'object' &&
    row[1] !== null &&
    !Array.isArray(row[1]);
  if (!Array.isArray(value) || !value.every(isEntry))
    return { error: 'its reader printed something else than entries' };
  return { entries: value.map(([key, refused]) => ({ key, refused })) };
}

/**
 * Stored session entries that outrank openclaw.json (the version's `sessionStore.refusedEntryKeys`).
 * Measured on 2026.9.6: a session's `permissionMode` replaces the configured exec and file-tool policy
 * (`"full"`: exec ran `env` and read returned /proc/self/environ, the provider token in both, with
 * exec denied in openclaw.json), and with any mode its `sessionRoot` is the file tools' boundary
 * (`"read-only"` with `"/"` read /proc/self/environ); its `toolOverrides.mcpServers` started an MCP
 * server openclaw.json disables. OpenClaw's Control UI and Gateway write them to
 * the database in the state directory, which the developer owns; no managed turn does. The launcher
 * and `qwen-managed plan` pass the same reader (openclaw-sessions.ts); without one nothing is read.
 */
export function sessionStoreRefusals(
  stateDir: string,
  plan: OpenclawLaunchPlan,
  facts: OpenclawVersionFacts,
  fs: Pick<LaunchFs, 'lstatSync'>,
  read: SessionStoreReader | undefined,
): string[] {
  const agent = managedAgent(plan);
  if (agent === undefined || read === undefined) return [];
  const database = `${stateDir}/${facts.sessionStore.database.replaceAll('{agent}', agent)}`;
  const stat = fs.lstatSync(database, NO_ENTRY);
  if (stat === undefined) return [];
  const fix = `remove ${show(database)} (and its -wal and -shm files) to start a new conversation`;
  if (!stat.isFile())
    return [
      `${show(database)}: is OpenClaw's session database for the agent ${show(agent)} but not a regular file, so the launcher cannot check its sessions — ${fix}`,
    ];
  const keys = Object.keys(facts.sessionStore.refusedEntryKeys);
  const result = read(plan.node, database, keys);
  if ('error' in result)
    return [
      `${show(database)}: is OpenClaw's session database for the agent ${show(agent)}, and the launcher could not read it to check its sessions (${terminalText(result.error)}) — ${fix}`,
    ];
  return result.entries.flatMap(({ key, refused }) =>
    Object.entries(refused).map(
      ([name, value]) =>
        `${show(database)}: the session ${show(key)} has ${name} ${show(typeof value === 'string' ? value : JSON.stringify(value))}: ${facts.sessionStore.refusedEntryKeys[name] ?? 'refused'} — set the session back to Default in OpenClaw with this state directory, or ${fix}`,
    ),
  );
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
  const agent = managedAgent(plan);
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
    // Step 4b: what in the state directory (its files, its stored sessions), or the agent's workspace in
    // the repository, would change the session.
    refused: [
      ...stateDirRefusals(stateDir, facts, fs),
      ...sessionStoreRefusals(stateDir, plan, facts, fs, input.openclawSessions),
      ...workspaceRefusals(plan, fs),
    ],
    prompt: OPENCLAW_PROMPT,
    ...(active ? {} : { notice: rolledBackNotice(OPENCLAW_PROFILE, 'OpenClaw') }),
  };
}
