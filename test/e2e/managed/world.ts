// One managed deployment, rendered for real: a temp directory (root-owned, 0755) holding the
// deployment.json, the install directory written by the BUILT `qwen-managed render`, a git-less
// repository (the developer's, owned by the throwaway user), root-owned credential files readable
// by the user's group only, the fake model the deployment's `settings` point at, and a throwaway
// non-root user whose passwd home is inside the temp directory (so /root and /home stay untouched).
//
// Instrument: the deployment's PATH starts with `<root>/tools`, whose `bash` logs its argv to
// `<root>/log/bash.log` and execs /bin/bash. Qwen runs every hook as `bash -c <command>` with bash
// from PATH (measurements §a), so the log is a complete record of hook runs, in order.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { LaunchPlan, ProfileKind } from '../../../src/contracts/launch-plan.js';
import { FakeModel } from '../../fixtures/fake-model/server.js';
import type { FakeService } from '../../fixtures/fake-services/index.js';
import { repoRoot } from '../harness/paths.js';
import { allProcesses, killProcessTree } from '../harness/processes.js';
import { RUN_MARKER_ENV } from '../harness/terminal.js';
import type { TestUser } from '../harness/users.js';
import { createThrowawayUser, removeThrowawayUser } from '../harness/users.js';
import { type PinnedToolchain, pinnedToolchain } from './toolchain.js';

export const BUILT_CLI = join(repoRoot, 'dist', 'cli', 'qwen-managed.js');
export const MODEL_KEY = 'sk-e2e-model-key-5d1c';
/** The PATH a developer's shell has when they type `launch-qwen` (the launcher replaces it). */
export const CALLER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface ProfileSpec {
  provider: Record<string, unknown>;
  timeoutMs?: number;
  /** `profiles.<kind>.repositoryTrust` (default: trusted). */
  repositoryTrust?: 'trusted' | 'untrusted';
}

export interface WorldOptions {
  /** Short label for the temp directory name. */
  label: string;
  profiles: Partial<Record<ProfileKind, ProfileSpec>>;
  /** Provider credentials: variable name → value (each written to a root-owned 0640 file). */
  credentials?: Record<string, string>;
  /** The deployment's `approvalGuard` (omitted = the default, `["yolo","auto"]`). */
  approvalGuard?: false | { modes: string[] };
  /** Fake providers, by name, shown in failure reports. */
  services?: Record<string, FakeService>;
  /** Another supported Qwen's cli.js in the run location (toolchain.ts `qwenCliOf`); default 0.24.4. */
  qwenCli?: string;
  /**
   * A credential broker (deployment.json `broker`) running as this system user on these ports: the
   * credential files are then root's alone (0600), and the world's user is the one allowed developer.
   */
  broker?: { user: string; ports: Record<string, number> };
  /** deployment.json's `environment.set` (e.g. the organisation's egress proxy). */
  environment?: Record<string, string>;
}

/**
 * A world with one profile searching the Generic HTTP Search v1 fake `search` (token in
 * CONTEXT_API_TOKEN); `baseUrl` points the provider elsewhere (a switchable origin in front of it).
 */
export function genericSearchWorld(
  label: string,
  kind: ProfileKind,
  search: FakeService,
  token: string,
  extra: { baseUrl?: string; timeoutMs?: number } = {},
): WorldOptions {
  const provider = {
    type: 'generic-http-search-v1',
    baseUrl: extra.baseUrl ?? search.url,
    tokenEnv: 'CONTEXT_API_TOKEN',
  };
  return {
    label,
    profiles: {
      [kind]: extra.timeoutMs === undefined ? { provider } : { provider, timeoutMs: extra.timeoutMs },
    },
    credentials: { CONTEXT_API_TOKEN: token },
    services: { 'generic-search': search },
  };
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export class ManagedWorld {
  readonly services: Record<string, FakeService>;
  readonly deployment: Record<string, unknown>;
  private closed = false;

  private constructor(
    readonly root: string,
    readonly installDir: string,
    readonly repo: string,
    readonly secretsDir: string,
    readonly logDir: string,
    readonly deploymentFile: string,
    readonly user: TestUser,
    readonly model: FakeModel,
    readonly toolchain: PinnedToolchain,
    options: WorldOptions,
    deployment: Record<string, unknown>,
  ) {
    this.services = { ...options.services };
    this.deployment = deployment;
  }

  static async create(options: WorldOptions): Promise<ManagedWorld> {
    const pinned = pinnedToolchain();
    const toolchain = options.qwenCli === undefined ? pinned : { ...pinned, qwenCli: options.qwenCli };
    const model = await FakeModel.start();
    const root = mkdtempSync(`/tmp/qme2e-${options.label}-`);
    chmodSync(root, 0o755);
    let user: TestUser | undefined;
    try {
      user = createThrowawayUser(join(root, 'home'));
      const owned = (dir: string, mode: number): string => {
        mkdirSync(dir, { mode });
        chmodSync(dir, mode);
        chownSync(dir, user!.uid, user!.gid);
        return dir;
      };
      const adminDir = (dir: string): string => {
        mkdirSync(dir, { mode: 0o755 });
        chmodSync(dir, 0o755);
        return dir;
      };
      const repo = owned(join(root, 'repo'), 0o755);
      const logDir = owned(join(root, 'log'), 0o700);
      owned(join(logDir, 'bash-env'), 0o700);
      // A developer's noisy ~/.bashrc. Debian's bash sources it when stdin is a socket (as for
      // Qwen's hooks) unless SHLVL says it is nested; anything it prints would corrupt a hook's JSON.
      const bashrc = join(user.home, '.bashrc');
      writeFileSync(
        bashrc,
        `# e2e: a developer's interactive start-up file\nprintf '%s\\n' "$$ $0" >> '${join(logDir, 'bashrc.log')}' 2>/dev/null\necho 'Welcome back! (from ~/.bashrc)'\n`,
        { mode: 0o644 },
      );
      chownSync(bashrc, user.uid, user.gid);
      const secretsDir = adminDir(join(root, 'secrets'));
      const tools = adminDir(join(root, 'tools'));
      const bashLog = join(logDir, 'bash.log');
      const bashEnvDir = join(logDir, 'bash-env');
      writeFileSync(
        join(tools, 'bash'),
        `#!/bin/sh\n# e2e instrument: log the argv and environment of every bash Qwen starts, then run the real bash.\nprintf '%s\\n' "$*" >> '${bashLog}' 2>/dev/null\nenv -0 > '${bashEnvDir}'/$$.env 2>/dev/null\nexec /bin/bash "$@"\n`,
        { mode: 0o755 },
      );
      chmodSync(join(tools, 'bash'), 0o755);

      const credentials: Record<string, Record<string, unknown>> = {};
      const secret = (name: string, value: string): string => {
        const file = join(secretsDir, `${name.toLowerCase()}.secret`);
        // Root-owned, readable by the user's group only: the user can read it, never change it. With a
        // broker, root's alone: the broker reads it before it drops privileges.
        const mode = options.broker === undefined ? 0o640 : 0o600;
        writeFileSync(file, `${value}\n`, { mode });
        chmodSync(file, mode);
        chownSync(file, 0, options.broker === undefined ? user!.gid : 0);
        return file;
      };
      for (const [name, value] of Object.entries(options.credentials ?? {})) {
        credentials[name] = { file: secret(name, value) };
      }
      const kinds = Object.keys(options.profiles);
      credentials['OPENAI_API_KEY'] = { file: secret('OPENAI_API_KEY', MODEL_KEY), profiles: kinds };

      const installDir = join(root, 'install');
      const deployment: Record<string, unknown> = {
        version: 1,
        platform: 'posix',
        installDir,
        node: toolchain.node,
        qwenCli: toolchain.qwenCli,
        repositoryRoot: repo,
        environment: {
          PATH: `${tools}:${SYSTEM_PATH}`,
          // The run marker lets the harness find every process of a session (hooks, MCP server).
          inherit: ['TERM', 'COLORTERM', 'LANG', RUN_MARKER_ENV],
          ...(options.environment === undefined ? {} : { set: options.environment }),
        },
        credentials,
        settings: {
          model: { name: model.modelId },
          security: { auth: { selectedType: 'openai', baseUrl: model.baseUrl } },
        },
        ...(options.approvalGuard !== undefined ? { approvalGuard: options.approvalGuard } : {}),
        ...(options.broker === undefined
          ? {}
          : {
              developers: { users: [user.name] },
              broker: { user: options.broker.user, ports: options.broker.ports },
            }),
        profiles: options.profiles,
      };
      const deploymentFile = join(root, 'deployment.json');
      writeFileSync(deploymentFile, `${JSON.stringify(deployment, null, 2)}\n`, { mode: 0o644 });
      const world = new ManagedWorld(
        root,
        installDir,
        repo,
        secretsDir,
        logDir,
        deploymentFile,
        user,
        model,
        toolchain,
        options,
        deployment,
      );
      const rendered = world.cli(['render', '--deployment', deploymentFile]);
      if (rendered.status !== 0) {
        throw new Error(
          `qwen-managed render failed (exit ${rendered.status}):\n${rendered.stdout}${rendered.stderr}`,
        );
      }
      return world;
    } catch (error) {
      if (user) removeThrowawayUser(user);
      await model.close();
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** Runs the built admin CLI (as root, the administrator). */
  cli(args: string[]): CommandResult {
    const result = spawnSync(process.execPath, [BUILT_CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  }

  /** `qwen-managed verify --json` against this world's deployment. */
  verify(): {
    ok: boolean;
    report: { ok: boolean; summary: unknown; checks: Array<Record<string, unknown>> };
  } {
    const result = this.cli([
      'verify',
      '--dir',
      this.installDir,
      '--deployment',
      this.deploymentFile,
      '--json',
    ]);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      summary: unknown;
      checks: Array<Record<string, unknown>>;
    };
    return { ok: result.status === 0 && report.ok, report };
  }

  /** `<installDir>/bin/launch-qwen`. */
  get launcher(): string {
    return join(this.installDir, 'bin', 'launch-qwen');
  }

  profileFile(kind: ProfileKind, file: string): string {
    return join(this.installDir, 'profiles', kind, file);
  }

  launchPlan(kind: ProfileKind): LaunchPlan {
    return JSON.parse(readFileSync(this.profileFile(kind, 'launch.json'), 'utf8')) as LaunchPlan;
  }

  systemSettings(kind: ProfileKind): Record<string, unknown> {
    return JSON.parse(readFileSync(this.profileFile(kind, 'system-settings.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  }

  /** The per-user, per-profile QWEN_HOME the launcher makes: `~/.local/share/qwen-managed/<installId>/<kind>/home`. */
  qwenHome(kind: ProfileKind): string {
    return join(
      this.user.home,
      '.local',
      'share',
      'qwen-managed',
      this.launchPlan(kind).installId,
      kind,
      'home',
    );
  }

  /** A caller environment like a developer's login shell (the launcher rebuilds Qwen's from nothing). */
  callerEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: CALLER_PATH,
      HOME: this.user.home,
      USER: this.user.name,
      LOGNAME: this.user.name,
      SHELL: '/bin/bash',
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      LANG: 'C.UTF-8',
      ...extra,
    };
  }

  /** Empties the bash and bashrc logs and the recorded bash environments (each session starts its own record). */
  resetBashLog(): void {
    for (const name of ['bash.log', 'bashrc.log']) {
      const file = join(this.logDir, name);
      if (existsSync(file)) truncateSync(file);
    }
    const envs = join(this.logDir, 'bash-env');
    for (const name of readdirSync(envs)) rmSync(join(envs, name), { force: true });
  }

  /** The environment of every bash Qwen started since the last reset (hooks and shell commands). */
  bashEnvs(): Array<Record<string, string>> {
    const envs = join(this.logDir, 'bash-env');
    return readdirSync(envs).map((name) => {
      const env: Record<string, string> = {};
      for (const entry of readFileSync(join(envs, name), 'utf8').split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      return env;
    });
  }

  /** Writes a file (and its missing directories) owned by the world's user, as a repository or home would hold it. */
  plant(file: string, content: string): void {
    let dir = dirname(file);
    const missing: string[] = [];
    while (!existsSync(dir)) {
      missing.unshift(dir);
      dir = dirname(dir);
    }
    for (const d of missing) {
      mkdirSync(d, { mode: 0o755 });
      chownSync(d, this.user.uid, this.user.gid);
    }
    writeFileSync(file, content);
    chownSync(file, this.user.uid, this.user.gid);
  }

  /** Every bash that sourced the user's ~/.bashrc since the session started (`<pid> <$0>`). */
  bashrcSourced(): string[] {
    return this.logLines('bashrc.log');
  }

  /** Every `bash` invocation Qwen made so far (argv joined by spaces), in order. */
  bashLog(): string[] {
    return this.logLines('bash.log');
  }

  private logLines(name: string): string[] {
    const file = join(this.logDir, name);
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  }

  /** The bash log entries that ran a given runtime of the install (`auto-recall.js`, …). */
  hookRuns(runtime: string): string[] {
    const needle = `'${join(this.installDir, 'runtime', runtime)}'`;
    return this.bashLog().filter((line) => line.startsWith('-c exec ') && line.includes(needle));
  }

  /** Live processes owned by the throwaway user. */
  userProcesses(): Array<{ pid: number; comm: string }> {
    return allProcesses()
      .filter((p) => {
        try {
          const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
          const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
          return Number(uid) === this.user.uid;
        } catch {
          return false;
        }
      })
      .map((p) => ({ pid: p.pid, comm: p.comm }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.userProcesses()) await killProcessTree(p.pid, { graceMs: 500 });
    try {
      removeThrowawayUser(this.user);
    } finally {
      await this.model.close();
      rmSync(this.root, { recursive: true, force: true });
    }
  }
}
