// `qwen-managed plan --dir DIR --profile KIND [--json]`: exactly what `launch-qwen --profile KIND`
// would run from that install — executable, argv, cwd and every environment variable — computed with
// the launcher's own functions, with this command's environment standing in for the caller's and
// the current user's passwd home for HOME. Credential values are never shown. The same for the
// openclaw-recall profile, whose decision prepareLaunch() makes too (launcher/prepare-openclaw.ts).

import { resolve } from 'node:path';
import type { DroppedName, EnvEntry, InheritedName } from '../../../launcher/env.js';
import { LaunchError } from '../../../launcher/messages.js';
import { NotDeployedError } from '../../../launcher/pins.js';
import { type LaunchDecision, prepareLaunch, REDACTED } from '../../../launcher/prepare-launch.js';
import type { Platform } from '../../base/platform.js';
import {
  ALL_PROFILE_KINDS,
  type AnyProfileKind,
  type CredentialSource,
  isAnyProfileKind,
  type LaunchPlan,
  unknownProfileKind,
} from '../../contracts/launch-plan.js';
import { withoutUrlUserinfo } from '../../deploy/deployment/problems.js';
import { notAnInstallTree } from '../../deploy/tree.js';
import { looksSecret } from '../../policy/environment-names.js';
import { posixQuote, powershellQuote } from '../../policy/quote.js';
import { defineCommand } from '../command.js';
import { InputError, UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';

/** What plan needs from the machine: the user, the file system, the platform. */
export type PlanDeps = Pick<AdminDeps, 'userInfo' | 'fs' | 'hostPlatform' | 'openclawSessions'>;

export { REDACTED };

const HELP = `Usage: qwen-managed plan --dir DIR --profile KIND [--json]

Prints exactly what \`launch-qwen --profile KIND\` would run from the install directory DIR: the
executable, its argv, the working directory and every environment variable with its value and
where it comes from (credential values are redacted). Your own environment stands in for the
developer's, and your passwd home for theirs.

Options:
  --dir DIR        the install directory (or a staged render)
  --profile KIND   ${ALL_PROFILE_KINDS.join(', ')}
  --json           one JSON object instead of text
  -h, --help       show this help

Exit codes: 0 printed; 1 the install cannot be read or its plan breaks the policies; 2 usage.
`;

export interface PlanEnvironmentEntry {
  name: string;
  value: string;
  source: EnvEntry['source'];
  redacted?: true;
  /** For a credential: where the launcher reads it. */
  from?: string;
}

export interface PlanRepository {
  trust: LaunchPlan['repositoryTrust'];
  /** The .env files Qwen would load now, in its order, with their scope. */
  envFiles: Array<{ path: string; scope: string }>;
  /** Names this launch would keep out (advanced.excludedEnvVars of its defaults layer). */
  excluded: string[];
  /** What would refuse the launch now, one line each. */
  refused: string[];
}

/** openclaw-recall: what the launcher adds for OpenClaw. */
export interface PlanOpenclaw {
  /** The OpenClaw version the profile was rendered for (the launcher checks the pinned package is it). */
  version: string;
  /** The per-user, per-install, per-profile OPENCLAW_STATE_DIR (created 0700 when missing). */
  stateDir: string;
  /** What in the state directory (its files, its stored sessions) would refuse the launch now, one line each. */
  refused: string[];
  /** The line the launcher prints before OpenClaw reads the message from the terminal. */
  prompt: string;
}

export interface PlanReport {
  profile: AnyProfileKind;
  /** The agent the launcher starts. */
  agent: 'qwen' | 'openclaw';
  platform: Platform;
  state: 'active' | 'rolled-back';
  externalContext: boolean;
  /** The line the launcher prints before starting a rolled-back profile. */
  notice?: string;
  executable: string;
  /** The full argv the executable receives, argv[0] included. */
  argv: string[];
  cwd: string;
  environment: PlanEnvironmentEntry[];
  inherited: InheritedName[];
  dropped: DroppedName[];
  /** Inherited credentials absent from this environment: the launcher would refuse to start. */
  missingCredentials: string[];
  /** Qwen's profiles: the repository check as it would run now, for this user. */
  repository?: PlanRepository;
  /** openclaw-recall: the OpenClaw version, the state directory and what in it refuses now. */
  openclaw?: PlanOpenclaw;
  /** The credential broker the session talks to: the launcher reads no credential and checks these listeners first. */
  broker?: { user: string; listeners: Array<{ name: string; port: number }> };
}

const FLAGS = {
  dir: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function credentialOrigin(source: CredentialSource): string {
  return 'file' in source ? `file ${source.file}` : 'inherited from the caller';
}

/** The launcher's decision for this profile, as the current user would get it now. */
async function decide(
  dir: string,
  kind: AnyProfileKind,
  callerEnv: Readonly<Record<string, string | undefined>>,
  deps: PlanDeps,
): Promise<LaunchDecision> {
  try {
    return await prepareLaunch({
      installDir: dir,
      kind,
      hostPlatform: deps.hostPlatform,
      purpose: 'plan',
      fs: deps.fs,
      callerEnv,
      home: deps.userInfo().homedir,
      // The launcher's own reader: a stored session it would refuse, plan names in the same words.
      openclawSessions: deps.openclawSessions,
      loadProject: () => import('../../../launcher/repository-project.js'),
    });
  } catch (error) {
    if (error instanceof NotDeployedError) {
      const deployed = error.deployed.join(', ') || 'none';
      throw new InputError(`plan: profile ${kind} is not deployed in ${dir} (deployed: ${deployed})`);
    }
    // The launcher's refusal of this plan is the administrator's input problem here.
    if (error instanceof LaunchError) {
      throw new InputError(error.problems.map((p) => `plan: ${p}`).join('\n'));
    }
    throw error;
  }
}

/** The launcher's decision (prepareLaunch) as a report: credential values are never in it. */
export async function planReport(
  dir: string,
  kind: AnyProfileKind,
  callerEnv: Readonly<Record<string, string | undefined>>,
  deps: PlanDeps,
): Promise<PlanReport> {
  const decision = await decide(dir, kind, callerEnv, deps);
  const { plan, externalContextActive: active } = decision;
  const origins = new Map(decision.credentials.map(([name, source]) => [name, credentialOrigin(source)]));
  const environment = decision.environment.entries.map((entry): PlanEnvironmentEntry => {
    // An inherited model key (say OPENAI_API_KEY through environment.inherit) is as secret as a
    // declared credential: the report names it and never prints its value.
    if (entry.source === 'inherited' && looksSecret(entry.name))
      return { ...entry, value: REDACTED, redacted: true };
    if (entry.source !== 'credential') {
      // A password written into a URL (a proxy's, a database's) is a secret whatever the name.
      const shown = withoutUrlUserinfo(entry.value, REDACTED);
      return shown === entry.value ? { ...entry } : { ...entry, value: shown, redacted: true };
    }
    return { ...entry, value: REDACTED, redacted: true, from: origins.get(entry.name) ?? '' };
  });
  return {
    profile: kind,
    agent: decision.host,
    platform: plan.platform,
    state: active ? 'active' : 'rolled-back',
    externalContext: active,
    ...(decision.notice === undefined ? {} : { notice: decision.notice }),
    executable: decision.command.node,
    argv: [decision.command.node, ...decision.command.argv],
    cwd: decision.command.cwd,
    environment,
    inherited: decision.environment.inherited,
    dropped: decision.environment.dropped,
    missingCredentials: decision.missingCredentials,
    ...(decision.host === 'qwen'
      ? {
          ...(decision.broker === undefined
            ? {}
            : { broker: { user: decision.broker.user, listeners: decision.broker.listeners } }),
          repository: {
            trust: decision.plan.repositoryTrust,
            envFiles: decision.repository.envFiles.map((f) => ({ path: f.path, scope: f.scope })),
            excluded: decision.repository.excluded,
            refused: decision.refused,
          },
        }
      : {
          openclaw: {
            version: decision.plan.openclawVersion,
            stateDir: decision.stateDir,
            refused: decision.refused,
            prompt: decision.prompt,
          },
        }),
  };
}

const SOURCE_TEXT: Record<EnvEntry['source'], string> = {
  'plan-path': 'pinned PATH of the plan',
  inherited: 'inherited (present now)',
  'admin-set': 'set by the administrator',
  credential: 'credential',
  forced: 'forced by the launcher',
  'passwd-home': 'passwd home of the user',
  'pinned-file': 'pinned admin file',
  'qwen-home': 'per-user, per-profile Qwen home (created 0700 when missing)',
  'launch-defaults':
    'system defaults written by the launcher at each start (the admin file + the .env names kept out)',
  'provider-config': 'pinned provider config',
  'broker-key': "the credential broker's public key (not a secret: the broker adds the real credential)",
  'broker-no-proxy': "extended with the credential broker's address (proxies never see its traffic)",
  'state-dir': 'per-user, per-profile OpenClaw state directory (created 0700 when missing)',
};

/** Values are printed as they are unless they hold control characters, which are escaped. */
function display(value: string): string {
  return /[\u0000-\u001f\u007f-\u009f]/u.test(value) ? JSON.stringify(value) : value;
}

export function formatPlan(report: PlanReport): string {
  const quote = report.platform === 'windows' ? powershellQuote : posixQuote;
  const lines: string[] = [
    `Profile:     ${report.profile} (${report.state === 'active' ? 'active' : 'rolled back: starts without external context'})`,
    ...(report.openclaw === undefined ? [] : [`Agent:       OpenClaw ${report.openclaw.version}`]),
    `Executable:  ${display(report.executable)}`,
    `Argv:        ${report.argv.map(quote).join(' ')}`,
    `Cwd:         ${display(report.cwd)}`,
    '',
    `Environment (${report.environment.length} variables; nothing else is passed):`,
  ];
  const width = Math.min(
    60,
    Math.max(...report.environment.map((e) => e.name.length + display(e.value).length + 1)),
  );
  for (const entry of report.environment) {
    const pair = `${entry.name}=${display(entry.value)}`;
    // `from` is "file /etc/…" or "inherited from the caller": each reads after its own words.
    const source =
      entry.source !== 'credential'
        ? SOURCE_TEXT[entry.source]
        : entry.from?.startsWith('file ') === true
          ? `credential from ${entry.from}`
          : `credential ${entry.from}`;
    lines.push(`  ${pair.padEnd(width)}  ${source}`);
  }
  const absent = report.inherited.filter((i) => !i.present).map((i) => i.name);
  if (absent.length > 0) lines.push('', `Inherited when present, absent now: ${absent.join(', ')}`);
  if (report.missingCredentials.length > 0) {
    lines.push(
      '',
      `Credentials taken from the caller and absent now (the launcher would refuse): ${report.missingCredentials.join(', ')}`,
    );
  }
  if (report.dropped.length > 0) {
    lines.push('', 'Dropped whatever the plan says:');
    for (const d of report.dropped) lines.push(`  ${d.name} (from ${d.from}): ${d.reason}`);
  }
  if (report.notice !== undefined) lines.push('', `The launcher prints: ${report.notice}`);
  if (report.broker !== undefined) {
    lines.push(
      '',
      `Credential broker (user ${report.broker.user}): no credential is read; before Qwen starts the launcher checks that root or ${report.broker.user} holds, and answers on, ${report.broker.listeners.map((l) => `127.0.0.1:${l.port} (${l.name})`).join(', ')}`,
    );
  }
  const repository = report.repository;
  if (repository !== undefined) {
    lines.push('', `Repository (${repository.trust}), as it is now for you:`);
    const files = repository.envFiles.map((f) => `${f.path} (${f.scope})`);
    lines.push(`  .env files Qwen would load: ${files.length > 0 ? files.join(', ') : 'none'}`);
    lines.push(
      `  kept out of Qwen's environment: ${repository.excluded.length > 0 ? repository.excluded.join(', ') : 'nothing'}`,
    );
    if (repository.refused.length === 0) lines.push('  the launcher would start Qwen');
    else {
      lines.push('  the launcher would refuse to start:');
      for (const line of repository.refused) lines.push(`    ${line}`);
    }
  }
  const openclaw = report.openclaw;
  if (openclaw !== undefined) {
    lines.push('', `OpenClaw state directory, as it is now for you: ${display(openclaw.stateDir)}`);
    if (openclaw.refused.length === 0) {
      lines.push('  the launcher would start OpenClaw, after printing:', `    ${openclaw.prompt}`);
    } else {
      lines.push('  the launcher would refuse to start:');
      for (const line of openclaw.refused) lines.push(`    ${line}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const planCommand = defineCommand({
  name: 'plan',
  summary: 'Print exactly what launch-qwen would run for a profile',
  help: HELP,
  flags: FLAGS,
  async run(flags, io, deps: PlanDeps) {
    // An empty --dir would resolve to the working directory: the same mistake as none.
    if (flags.dir === undefined || flags.dir === '') throw new UsageError('plan: --dir DIR is required');
    if (flags.profile === undefined) throw new UsageError('plan: --profile KIND is required');
    if (!isAnyProfileKind(flags.profile)) throw new UsageError(`plan: ${unknownProfileKind(flags.profile)}`);
    const dir = resolve(io.cwd, flags.dir);
    // A directory that is not an install is a wrong --dir, not a tree to re-render.
    const notInstall = notAnInstallTree(dir, deps.fs);
    if (notInstall !== undefined) throw new InputError(`plan: ${notInstall}`);
    const report = await planReport(dir, flags.profile, io.env, deps);
    io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatPlan(report));
    return 0;
  },
});
