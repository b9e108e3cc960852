// `qwen-managed status --dir DIR --profile KIND [--user NAME] [--json]`: the administrator's
// `/status` — for one profile and one user, on one screen: which install, which Qwen and Node, the
// settings files Qwen merges in their order, the hooks and MCP servers it will run, whether each
// credential is reachable for that user, and verify's verdict on the tree now. The launch itself is
// decided by the launcher's own prepareLaunch() (as plan does), with the user's passwd home.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LaunchError } from '../../../launcher/messages.js';
import { NotDeployedError } from '../../../launcher/pins.js';
import { prepareLaunch, type QwenLaunchDecision } from '../../../launcher/prepare-launch.js';
import { platformOfHost } from '../../base/platform.js';
import { admit } from '../../broker/allow.js';
import { BROKER_CONFIG_REL } from '../../contracts/broker.js';
import { brokerConfigSchema } from '../../contracts/broker-config.js';
import {
  isProfileKind,
  OPENCLAW_PROFILE,
  PROFILE_KINDS,
  type ProfileKind,
  unknownProfileKind,
} from '../../contracts/launch-plan.js';
import { PROFILE_FILES, profileRel } from '../../contracts/layout.js';
import { pathChain, readAccountDb } from '../../deploy/host-accounts.js';
import { nodeVersionAt } from '../../deploy/pinned-host-facts.js';
import { notAnInstallTree } from '../../deploy/tree.js';
import { runVerify } from '../../deploy/verify/run.js';
import { type Account, findGroup, findUser, principalOf, readBlocker } from '../../host/accounts.js';
import { satisfiesEngines } from '../../host/node-engines.js';
import { qwenPackageInfo } from '../../host/qwen-package.js';
import { ARGUMENT_POLICY } from '../../policy/policies.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../qwen/versions.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { defineCommand } from '../command.js';
import { InputError, UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';

export const STATUS_HELP = `Usage: qwen-managed status --dir DIR --profile KIND [--user NAME] [--json]

What a developer gets from \`launch-qwen --profile KIND\` of this install, on one screen: the
install and the profile's state, the Qwen package and the Node that runs it, the settings files Qwen
merges (lowest first; the managed system settings win), the hooks and MCP servers it will run,
whether each credential file is readable by the user (with a credential broker: whether the broker
lets them in), and verify's verdict on the tree now (without smoke runs). Nothing is started or
written.

Options:
  --dir DIR      the install directory (required)
  --profile KIND on-demand, auto-recall or write (required)
  --user NAME    the developer to look at (default: you); their passwd home locates their Qwen home
  --json         the same as one JSON object
  -h, --help     show this help

Exit codes: 0 printed (whatever verify found: status reports, verify judges), 1 not an install, an
unknown user or a profile the launcher cannot read, 2 usage error.
`;

export interface StatusReport {
  dir: string;
  profile: ProfileKind;
  state: 'active' | 'rolled-back';
  install: { installDir: string; toolkitVersion: string; deploymentFile: string | null; adminUid: number };
  user: { name: string; uid: number; home: string; groups: string[] };
  qwen: { cli: string; realPath: string | null; version: string | null; supported: boolean | null };
  node: { path: string; version: string | null; engines: string | null; satisfied: boolean | null };
  /** Lowest first: Qwen merges each over the one before; the system settings win. */
  settings: { layer: string; file: string; exists: boolean; note: string }[];
  hooks: { event: string; name: string; command: string; from: 'system' | 'user' }[];
  mcpServers: { name: string; command: string; tools: string[] }[];
  mcpExcluded: string[];
  credentials: {
    name: string;
    source: 'file' | 'inherit';
    file: string | null;
    reachable: boolean | null;
    detail: string;
  }[];
  /** A brokered profile: whether the broker lets the user in (they read no credential then). */
  broker: { user: string; allowed: boolean | null; detail: string } | null;
  verify: { ok: boolean; errors: number; warnings: number; passed: number; failed: string[] };
}

/** The user to look at: `--user`, or the account running this command. */
function accountFor(name: string | undefined, db: ReturnType<typeof readAccountDb>): Account {
  const me = os.userInfo();
  const wanted = name ?? me.username;
  const account = findUser(db, wanted);
  if (account !== undefined) return { ...account, home: account.home ?? me.homedir };
  if (name === undefined) return { name: me.username, uid: me.uid, gid: me.gid, home: me.homedir };
  throw new InputError(`status: --user ${name} is not an account on this machine (getent passwd ${name})`);
}

function readJsonFile(file: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Every command hook of a settings object, by event, with its name. */
function hooksOf(settings: JsonObject | undefined, from: 'system' | 'user'): StatusReport['hooks'] {
  const out: StatusReport['hooks'] = [];
  const hooks = settings?.['hooks'];
  if (!isPlainObject(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const entries = isPlainObject(group) && Array.isArray(group['hooks']) ? group['hooks'] : [];
      for (const hook of entries) {
        if (!isPlainObject(hook)) continue;
        out.push({
          event,
          name: typeof hook['name'] === 'string' ? hook['name'] : '(unnamed)',
          command: typeof hook['command'] === 'string' ? hook['command'] : '',
          from,
        });
      }
    }
  }
  return out;
}

async function decide(
  dir: string,
  kind: ProfileKind,
  home: string,
  env: Record<string, string | undefined>,
  hostPlatform: NodeJS.Platform,
): Promise<QwenLaunchDecision> {
  try {
    const decision = await prepareLaunch({
      installDir: dir,
      kind,
      hostPlatform,
      purpose: 'plan',
      fs,
      callerEnv: env,
      home,
      loadProject: () => import('../../../launcher/repository-project.js'),
    });
    // A Qwen profile kind always gets Qwen's decision.
    if (decision.host !== 'qwen') throw new Error(`status: ${kind} decided for ${decision.host}`);
    return decision;
  } catch (error) {
    if (error instanceof NotDeployedError)
      throw new InputError(
        `status: profile ${kind} is not deployed in ${dir} (deployed: ${error.deployed.join(', ') || 'none'})`,
      );
    if (error instanceof LaunchError)
      throw new InputError(error.problems.map((p) => `status: ${p}`).join('\n'));
    throw error;
  }
}

/** What lets a user who cannot read a credential file launch: depends on whether they are a developer. */
function readFix(
  decision: QwenLaunchDecision,
  account: Account,
  db: ReturnType<typeof readAccountDb>,
  dir: string,
) {
  const developers = decision.plan.developers;
  const { gids } = principalOf(db, account);
  const listed =
    developers !== undefined &&
    (developers.users.includes(account.name) ||
      developers.groups.some((name) => {
        const group = findGroup(db, name);
        return group !== undefined && gids.has(group.gid);
      }));
  if (listed)
    return `fix: let every developer read it (\`qwen-managed verify --dir ${dir}\` names the chgrp and chmod)`;
  return `fix: if ${account.name} should launch, add them to "developers" in deployment.json, render again, and give the file the group and mode \`qwen-managed verify\` then names`;
}

function credentialsFor(
  decision: QwenLaunchDecision,
  account: Account,
  db: ReturnType<typeof readAccountDb>,
  dir: string,
): StatusReport['credentials'] {
  const who = principalOf(db, account);
  return decision.credentials.map(([name, source]) => {
    if (!('file' in source)) {
      return {
        name,
        source: 'inherit' as const,
        file: null,
        reachable: null,
        detail: `taken from ${account.name}'s environment at launch`,
      };
    }
    const chain = pathChain(source.file);
    if (chain === null)
      return { name, source: 'file' as const, file: source.file, reachable: false, detail: 'does not exist' };
    // Read permission on a directory is not a credential: the launcher's read fails for everyone.
    if (chain.at(-1)?.directory === true)
      return {
        name,
        source: 'file' as const,
        file: source.file,
        reachable: false,
        detail: `is a directory, so every launch fails; point credentials.${name} of deployment.json at the file that holds the secret`,
      };
    const blocker = readBlocker(who, chain);
    return {
      name,
      source: 'file' as const,
      file: source.file,
      reachable: blocker === undefined,
      detail:
        blocker === undefined
          ? `readable by ${account.name}`
          : `not readable by ${account.name}: ${blocker.path} (mode ${blocker.mode.toString(8).padStart(4, '0')}) stops them, so their launch fails; ${readFix(decision, account, db, dir)}`,
    };
  });
}

/** With a broker the credentials are its: the user's launch needs the broker's admission instead. */
function brokerFor(dir: string, decision: QwenLaunchDecision, account: Account): StatusReport['broker'] {
  if (decision.broker === undefined) return null;
  const user = decision.broker.user;
  let allow: { users: string[]; groups: string[] };
  try {
    allow = brokerConfigSchema.parse(
      JSON.parse(fs.readFileSync(path.join(dir, BROKER_CONFIG_REL), 'utf8')),
    ).allow;
  } catch {
    return {
      user,
      allowed: null,
      detail: `${BROKER_CONFIG_REL} cannot be read as render wrote it; re-render`,
    };
  }
  const admission = admit(account.uid, allow, readAccountDb([account.name], allow.groups));
  // The broker refuses the launcher's health request of anyone else: their launch fails.
  return admission.allowed
    ? {
        user,
        allowed: true,
        detail: `${account.name} may use the credential broker (${admission.via === 'group' ? 'a member of broker.allow.groups' : admission.via === 'user' ? 'named in broker.allow.users' : 'root is always let in'})`,
      }
    : {
        user,
        allowed: false,
        detail: `${account.name} is not allowed to use the credential broker, so their launch fails; fix: add ${account.name} to "developers" (or "broker.allow", which defaults to it) in deployment.json and render again`,
      };
}

export async function statusReport(
  dir: string,
  kind: ProfileKind,
  userName: string | undefined,
  callerEnv: Record<string, string | undefined>,
  deps: Pick<AdminDeps, 'runtimeDir' | 'toolkitVersion' | 'hostPlatform' | 'nodePath' | 'now'>,
): Promise<StatusReport> {
  const db = readAccountDb(userName === undefined ? [] : [userName]);
  const account = accountFor(userName, db);
  const home = account.home ?? os.userInfo().homedir;
  // Another user's environment is not this one: their inherited names count as absent.
  const decision = await decide(dir, kind, home, userName === undefined ? callerEnv : {}, deps.hostPlatform);
  // Its users, homes, Node and credential files are another machine's: nothing here would tell of them.
  const here = platformOfHost(deps.hostPlatform);
  if (decision.plan.platform !== here)
    throw new InputError(
      `status: ${dir} was rendered for ${decision.plan.platform} (a staged \`render --out\`); this machine is ${here}. Fix: run status on a ${decision.plan.platform} machine the tree is installed on (\`qwen-managed plan\` shows its launch from here)`,
    );
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    toolkitVersion: string;
    adminUid: number;
    deploymentFile?: string;
    profiles: Record<string, { state: 'active' | 'rolled-back' }>;
  };
  const plan = decision.plan;
  let realCli: string | null = null;
  try {
    realCli = fs.realpathSync(plan.qwenCli);
  } catch {
    // absent: reported as such
  }
  const info =
    realCli === null
      ? undefined
      : qwenPackageInfo(realCli, { readFileSync: (f) => fs.readFileSync(f, 'utf8') });
  const nodeVersion = fs.existsSync(plan.node) ? (nodeVersionAt(plan.node) ?? null) : null;
  const engines = info?.qwenPackage === true ? (info.enginesNode ?? null) : null;
  const systemFile = path.join(dir, profileRel(kind, PROFILE_FILES.systemSettings));
  const system = readJsonFile(systemFile);
  const userSettings = path.join(decision.qwenHome, 'settings.json');
  const workspace = path.join(plan.cwd, '.qwen', 'settings.json');
  const mcpAt = decision.command.argv.indexOf(ARGUMENT_POLICY.managed.mcpConfigFlag);
  const mcp =
    mcpAt === -1 ? undefined : readJsonFile(path.join(dir, profileRel(kind, PROFILE_FILES.mcpConfig)));
  const servers = isPlainObject(mcp?.['mcpServers']) ? (mcp['mcpServers'] as JsonObject) : {};
  const excluded = isPlainObject(system?.['mcp']) ? (system['mcp'] as JsonObject)['excluded'] : undefined;
  const report = await runVerify({
    dir,
    runtimeDir: await deps.runtimeDir(),
    toolkitVersion: deps.toolkitVersion,
    smoke: false,
    hostPlatform: deps.hostPlatform,
    fallbackNode: deps.nodePath,
    now: deps.now(),
  });
  const groups = db.groups
    .filter((g) => g.gid === account.gid || g.members.includes(account.name))
    .map((g) => g.name);
  return {
    dir,
    profile: kind,
    state: manifest.profiles[kind]?.state ?? 'active',
    install: {
      installDir: plan.installDir,
      toolkitVersion: manifest.toolkitVersion,
      deploymentFile: manifest.deploymentFile ?? null,
      adminUid: manifest.adminUid,
    },
    user: { name: account.name, uid: account.uid, home, groups },
    qwen: {
      cli: plan.qwenCli,
      realPath: realCli,
      version: info?.version ?? null,
      supported: info?.version === undefined ? null : SUPPORTED_QWEN_VERSIONS.includes(info.version),
    },
    node: {
      path: plan.node,
      version: nodeVersion,
      engines,
      satisfied:
        nodeVersion === null || engines === null ? null : (satisfiesEngines(nodeVersion, engines) ?? null),
    },
    settings: [
      {
        layer: 'system defaults',
        file: decision.launchDefaults.file,
        exists: fs.existsSync(decision.launchDefaults.file),
        note: `written by the launcher at each start from ${profileRel(kind, PROFILE_FILES.systemDefaults)}`,
      },
      {
        layer: 'user',
        file: userSettings,
        exists: fs.existsSync(userSettings),
        note: `${account.name}'s own (QWEN_HOME; created at the first launch)`,
      },
      {
        layer: 'workspace',
        file: workspace,
        exists: fs.existsSync(workspace),
        note:
          plan.repositoryTrust === 'trusted'
            ? 'read (the repository is trusted); the launcher refuses what it cannot neutralise'
            : 'ignored (the repository is untrusted)',
      },
      {
        layer: 'system',
        file: systemFile,
        exists: system !== undefined,
        note: 'managed; wins over every layer',
      },
    ],
    hooks: [...hooksOf(system, 'system'), ...hooksOf(readJsonFile(userSettings), 'user')],
    mcpServers: Object.entries(servers).map(([name, server]) => {
      const entry = isPlainObject(server) ? server : {};
      const args = Array.isArray(entry['args']) ? entry['args'].map(String) : [];
      return {
        name,
        command: [String(entry['command'] ?? ''), ...args].join(' '),
        tools: Array.isArray(entry['includeTools']) ? entry['includeTools'].map(String) : [],
      };
    }),
    mcpExcluded: Array.isArray(excluded) ? excluded.map(String) : [],
    credentials: credentialsFor(decision, account, db, dir),
    broker: brokerFor(dir, decision, account),
    verify: {
      ok: report.ok,
      errors: report.summary.errors,
      warnings: report.summary.warnings,
      passed: report.summary.passed,
      failed: report.checks
        .filter((c) => !c.ok && c.severity === 'error')
        .map((c) => `[${c.id}] ${c.message}`),
    },
  };
}

const yesNo = (value: boolean | null, yes: string, no: string, unknown: string) =>
  value === null ? unknown : value ? yes : no;

export function formatStatus(r: StatusReport): string {
  const lines = [
    `Install:     ${r.dir} (installDir ${r.install.installDir}; rendered by qwen-managed ${r.install.toolkitVersion}${r.install.deploymentFile === null ? '' : ` from ${r.install.deploymentFile}`})`,
    `Profile:     ${r.profile}, ${r.state === 'active' ? 'active' : 'rolled back: starts without external context'}`,
    `User:        ${r.user.name} (uid ${r.user.uid}; groups ${r.user.groups.join(', ') || 'none'}; home ${r.user.home})`,
    `Qwen:        ${r.qwen.version === null ? 'no Qwen package found' : `${r.qwen.version} (${yesNo(r.qwen.supported, 'supported', 'NOT supported', '?')})`} at ${r.qwen.cli}${r.qwen.realPath !== null && r.qwen.realPath !== r.qwen.cli ? ` → ${r.qwen.realPath}` : ''}`,
    `Node:        ${r.node.path} ${r.node.version ?? '(does not run here)'}${r.node.engines === null ? '' : `; Qwen needs ${r.node.engines}: ${yesNo(r.node.satisfied, 'ok', 'NOT satisfied', 'unknown')}`}`,
    'Settings (Qwen merges each over the one before; the system settings win):',
    ...r.settings.map(
      (s, i) =>
        `  ${i + 1}. ${s.layer.padEnd(15)} ${s.file} (${s.exists ? 'present' : 'absent'}) — ${s.note}`,
    ),
    `Hooks:${r.hooks.length === 0 ? '       none' : ''}`,
    ...r.hooks.map((h) => `  ${h.event.padEnd(16)} ${h.name} [${h.from}]: ${h.command}`),
    `MCP servers: ${[r.mcpServers.length === 0 ? 'none' : `${r.mcpServers.length}`, ...(r.mcpExcluded.length === 0 ? [] : [`excluded by the system settings: ${r.mcpExcluded.join(', ')}`])].join('; ')}`,
    ...r.mcpServers.map(
      (m) => `  ${m.name}: ${m.command}${m.tools.length === 0 ? '' : ` (tools: ${m.tools.join(', ')})`}`,
    ),
    `Credentials:${r.credentials.length > 0 ? '' : r.broker === null ? ' none' : ` held by the credential broker (user ${r.broker.user})`}`,
    ...r.credentials.map(
      (c) =>
        `  ${c.reachable === false ? 'FAIL' : 'ok  '} ${c.name}: ${c.file === null ? 'inherited' : `file ${c.file}`} — ${c.detail}`,
    ),
    ...(r.broker === null
      ? []
      : [
          `Broker:      ${r.broker.allowed === false ? 'FAIL' : r.broker.allowed === null ? '?   ' : 'ok  '} ${r.broker.detail}`,
        ]),
    `Verify now:  ${r.verify.ok ? 'OK' : 'FAILED'} — ${r.verify.errors} violation(s), ${r.verify.warnings} warning(s), ${r.verify.passed} check(s) passed (without smoke runs)`,
    ...r.verify.failed.slice(0, 5).map((f) => `  ${f}`),
    ...(r.verify.failed.length > 5
      ? [`  … and ${r.verify.failed.length - 5} more: qwen-managed verify --dir ${r.dir}`]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

export const statusCommand = defineCommand({
  name: 'status',
  summary:
    'Show one profile as a developer gets it: install, Qwen, Node, settings, hooks, credentials, verify',
  help: STATUS_HELP,
  flags: {
    dir: { type: 'string' },
    profile: { type: 'string' },
    user: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(flags, io, deps: AdminDeps) {
    const dir = path.resolve(io.cwd, required('status', 'dir', flags.dir));
    const kind = required('status', 'profile', flags.profile);
    // Status shows Qwen's settings layers, hooks and MCP servers; OpenClaw's session is plan's and verify's.
    if (kind === OPENCLAW_PROFILE)
      throw new UsageError(
        `status: --profile ${OPENCLAW_PROFILE}: status shows Qwen's profiles; for OpenClaw run \`qwen-managed plan --dir ${dir} --profile ${OPENCLAW_PROFILE}\` and \`qwen-managed verify --dir ${dir}\``,
      );
    if (!isProfileKind(kind))
      throw new UsageError(`status: --profile: ${unknownProfileKind(kind, PROFILE_KINDS)}`);
    if (flags.user === '')
      throw new UsageError('status: --user must name an account (or leave it out for you)');
    const notInstall = await notAnInstallTree(dir);
    if (notInstall !== undefined) throw new InputError(`status: ${notInstall}`);
    const report = await statusReport(dir, kind, flags.user, { ...io.env }, deps);
    io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return 0;
  },
});
