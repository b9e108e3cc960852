// The built launcher starting a stub "Qwen" in a real pseudo-terminal, as a throwaway non-root user,
// on both run paths: process.execve (Node 22) and the spawn fallback (this Node 20). The stub records
// its argv, environment, cwd and TTYs; the launcher must hand over exactly the managed ones.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenclawSessions } from '../../../launcher/openclaw-sessions.js';
import { planReport } from '../../../src/cli/commands/plan.js';
import type { ProfileKind } from '../../../src/contracts/launch-plan.js';
import { buildInstallDir, FORCED_ENV, type InstallFixture } from '../../fixtures/install-dir.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';
import {
  finished,
  launcherSuite,
  node22Binary,
  pinNode,
  readRecord,
  type Stub,
  type StubBehavior,
  type StubRecord,
  writeStubQwen,
} from './harness.js';

const TOKEN = 'tok-from-file-Zx81Qm';
const MODEL_KEY = 'sk-inherited-model-key';
const suite = launcherSuite('qm-launch-', 'launch');
let counter = 0;

/** What the developer's shell hands the launcher: every bypass variable of the spec included. */
const CALLER_ENV: Record<string, string> = {
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent/caller-home',
  XDG_DATA_HOME: '/nonexistent/xdg-data',
  NODE_OPTIONS: '--max-old-space-size=256',
  QWEN_CODE_RELAUNCH_ARGS: '["--yolo"]',
  BASH_ENV: '/nonexistent/evil.sh',
  LD_PRELOAD: 'libc.so.6',
  QWEN_CODE_SAFE_MODE: '1',
  QWEN_CODE_SIMPLE: '1',
  QWEN_HOME: '/tmp/shared-qwen-home',
  QWEN_EXTERNAL_CONTEXT_CONFIG: '/nonexistent/evil-config.json',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example',
  OPENAI_API_KEY: MODEL_KEY,
  CONTEXT_API_TOKEN: 'caller-token-must-not-win',
  UNLISTED_SECRET: 'never-passed',
  // A caller's own CA could intercept provider and model traffic: only the plan's pin may set it.
  NODE_EXTRA_CA_CERTS: '/nonexistent/caller-mitm-ca.pem',
};

interface Case {
  f: InstallFixture;
  stub: Stub;
  node: string;
}

function fixture(
  node: string,
  behavior: StubBehavior,
  states: Partial<Record<ProfileKind, 'active' | 'rolled-back'>> = {},
  tokenFile = `${TOKEN}\n`,
  pinCa = false,
): Case {
  const root = path.join(suite.base, `f${counter++}`);
  fs.mkdirSync(root, { mode: 0o755 });
  const stub = writeStubQwen(root, behavior, suite.user);
  const secrets = path.join(root, 'secrets');
  fs.mkdirSync(secrets, { mode: 0o755 });
  fs.writeFileSync(path.join(secrets, 'context.token'), tokenFile, { mode: 0o644 });
  const f = buildInstallDir({
    root,
    launcherBundle: suite.bundle,
    node,
    qwenCli: stub.cli,
    profiles: ['on-demand', 'auto-recall'],
    states,
    environment: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      // Forbidden names listed on purpose: the launcher drops them whatever the plan says.
      inherit: [
        'TERM',
        'LANG',
        'NODE_OPTIONS',
        'QWEN_CODE_RELAUNCH_ARGS',
        'BASH_ENV',
        'LD_PRELOAD',
        'NODE_EXTRA_CA_CERTS',
      ],
      set: {
        NO_PROXY: 'localhost,127.0.0.1',
        BASH_ENV: '/nonexistent/admin-evil.sh',
        NODE_EXTRA_CA_CERTS: '/nonexistent/admin-set-ca.pem',
      },
    },
    credentials: {
      CONTEXT_API_TOKEN: { file: path.join(secrets, 'context.token') },
      OPENAI_API_KEY: { inherit: true },
    },
    providerCredentials: ['CONTEXT_API_TOKEN'],
    // What render writes for deployment.json `tls`: the CA file pinned where the administrator keeps it.
    ...(pinCa
      ? {
          editPlan: (plan) => {
            plan.environment.files['NODE_EXTRA_CA_CERTS'] = caFileOf(root);
            return plan;
          },
        }
      : {}),
  });
  if (pinCa) {
    fs.mkdirSync(path.dirname(caFileOf(root)), { mode: 0o755 });
    fs.writeFileSync(caFileOf(root), createTestCertificate().cert, { mode: 0o644 });
  }
  return { f, stub, node };
}

const caFileOf = (root: string) => path.join(root, 'pki', 'ca.pem');

/**
 * An OpenSSL configuration whose engine section loads a library (built with gcc) that leaves a
 * marker file when the dynamic loader runs its constructor — in whichever process reads the file.
 */
function opensslEngine(root: string): { conf: string; marker: string } {
  const dir = path.join(root, 'openssl');
  fs.mkdirSync(dir, { mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  const marker = path.join(dir, 'engine-loaded');
  const source = path.join(dir, 'engine.c');
  fs.writeFileSync(
    source,
    `#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
  int fd = open(${JSON.stringify(marker)}, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) { write(fd, "loaded\\n", 7); close(fd); }
}
`,
  );
  const library = path.join(dir, 'engine.so');
  // gcc is required: without it this row cannot prove anything, and the suite says so by failing.
  const built = spawnSync('gcc', ['-shared', '-fPIC', '-o', library, source], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`gcc failed: ${built.stderr}`);
  const conf = path.join(dir, 'openssl.cnf');
  fs.writeFileSync(
    conf,
    `nodejs_conf = init\nopenssl_conf = init\n[init]\nengines = engines\n[engines]\nmark = mark\n[mark]\ndynamic_path = ${library}\ninit = 1\n`,
  );
  return { conf, marker };
}

function launch(c: Case, kind: ProfileKind) {
  return suite.sessions.start([c.f.shim, '--profile', kind], CALLER_ENV, suite.user, suite.base);
}

function qwenHome(c: Case, kind: ProfileKind): string {
  return path.join(suite.user.home, '.local', 'share', 'qwen-managed', c.f.installId, kind, 'home');
}

async function waitForRecord(stub: Stub, timeoutMs = 15_000): Promise<StubRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = readRecord(stub);
    if (record !== undefined) return record;
    if (Date.now() > deadline) throw new Error('the stub never recorded');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each([
  { mode: 'execve', source: () => node22Binary() },
  { mode: 'spawn', source: () => process.execPath },
])('launch-qwen, $mode path', ({ mode, source }) => {
  let node: string;
  beforeAll(() => {
    node = pinNode(source(), path.join(suite.base, `node-${mode}`, 'node'));
  }, 600_000);

  it('the pinned node really takes this path', () => {
    const hasExecve = (n: string) =>
      spawnSync(n, ['-p', 'typeof process.execve'], { encoding: 'utf8' }).stdout.trim();
    expect(hasExecve(node)).toBe(mode === 'execve' ? 'function' : 'undefined');
  });

  it('hands Qwen exactly the managed argv, environment and cwd, on two TTYs', async () => {
    const c = fixture(node, {});
    const session = launch(c, 'on-demand');
    const { exit, output } = await finished(session);
    const record = await waitForRecord(c.stub);
    const p = (file: string) => c.f.profileFile('on-demand', file);
    expect(exit.exitCode).toBe(0);
    expect(record.argv).toEqual([c.stub.cli, '--extensions', 'none', '--mcp-config', p('mcp.json')]);
    expect(record.execPath).toBe(node);
    expect(record.cwd).toBe(c.f.cwd);
    expect([record.stdinTTY, record.stdoutTTY, record.uid]).toEqual([true, true, suite.user.uid]);
    expect(record.env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      NO_PROXY: 'localhost,127.0.0.1',
      CONTEXT_API_TOKEN: TOKEN,
      OPENAI_API_KEY: MODEL_KEY,
      ...FORCED_ENV,
      HOME: suite.user.home,
      QWEN_CODE_SYSTEM_SETTINGS_PATH: p('system-settings.json'),
      // The launcher's own defaults layer (the admin file + this launch's excludedEnvVars).
      QWEN_CODE_SYSTEM_DEFAULTS_PATH: path.join(
        path.dirname(qwenHome(c, 'on-demand')),
        'system-defaults.json',
      ),
      QWEN_CODE_TRUSTED_FOLDERS_PATH: p('trusted-folders.json'),
      QWEN_HOME: qwenHome(c, 'on-demand'),
      QWEN_RUNTIME_DIR: qwenHome(c, 'on-demand'),
      QWEN_EXTERNAL_CONTEXT_CONFIG: p('external-context.json'),
    });
    // execve keeps the launcher's pid; the fallback is the stub's parent.
    if (mode === 'execve') expect(record.pid).toBe(session.pid);
    else expect([record.ppid, record.pid === session.pid]).toEqual([session.pid, false]);
    // The launcher itself says nothing on a normal start.
    expect(output).toBe('STUB DONE\n');
  });

  it('creates the per-user QWEN_HOME 0700 with {"$version":4}', async () => {
    const c = fixture(node, {});
    const session = launch(c, 'auto-recall');
    expect((await session.waitForExit()).exitCode).toBe(0);
    const home = qwenHome(c, 'auto-recall');
    const stat = fs.statSync(home);
    expect([stat.uid, stat.mode & 0o777]).toEqual([suite.user.uid, 0o700]);
    expect(fs.readFileSync(path.join(home, 'settings.json'), 'utf8')).toBe('{"$version":4}\n');
    expect(fs.statSync(path.join(home, 'settings.json')).mode & 0o777).toBe(0o600);
  });

  it('reads a credential file with a CRLF ending', async () => {
    const c = fixture(node, {}, {}, `${TOKEN}\r\n`);
    const session = launch(c, 'on-demand');
    expect((await session.waitForExit()).exitCode).toBe(0);
    expect((await waitForRecord(c.stub)).env['CONTEXT_API_TOKEN']).toBe(TOKEN);
  });

  it('starts a rolled-back profile without external context, after exactly one line', async () => {
    const c = fixture(node, {}, { 'on-demand': 'rolled-back' });
    const { exit, output } = await finished(launch(c, 'on-demand'));
    expect(exit.exitCode).toBe(0);
    const record = await waitForRecord(c.stub);
    expect(record.argv).toEqual([c.stub.cli, '--extensions', 'none']);
    expect(Object.keys(record.env)).not.toContain('QWEN_EXTERNAL_CONTEXT_CONFIG');
    expect(Object.keys(record.env)).not.toContain('CONTEXT_API_TOKEN');
    expect(record.env['OPENAI_API_KEY']).toBe(MODEL_KEY);
    expect(output).toBe(
      'launch-qwen: profile "on-demand" is rolled back; starting Qwen without external context.\nSTUB DONE\n',
    );
  });

  it('passes the pinned CA file as NODE_EXTRA_CA_CERTS, never the caller or plan value', async () => {
    const c = fixture(node, {}, {}, `${TOKEN}\n`, true);
    const { exit, output } = await finished(launch(c, 'auto-recall'));
    expect([exit.exitCode, output]).toEqual([0, 'STUB DONE\n']);
    const record = await waitForRecord(c.stub);
    expect(record.env['NODE_EXTRA_CA_CERTS']).toBe(caFileOf(c.f.root));
    const report = await planReport(c.f.installDir, 'auto-recall', CALLER_ENV, {
      userInfo: () => ({ homedir: suite.user.home }),
      fs,
      hostPlatform: process.platform,
      openclawSessions: readOpenclawSessions,
    });
    expect(report.environment.find((e) => e.name === 'NODE_EXTRA_CA_CERTS')).toEqual({
      name: 'NODE_EXTRA_CA_CERTS',
      value: caFileOf(c.f.root),
      source: 'pinned-file',
    });
  });

  it('refuses to start when the pinned CA file is writable by others, and Qwen never runs', async () => {
    const c = fixture(node, {}, {}, `${TOKEN}\n`, true);
    fs.chmodSync(caFileOf(c.f.root), 0o666);
    const { exit, output } = await finished(launch(c, 'auto-recall'));
    expect([exit.exitCode, output]).toEqual([
      1,
      `launch-qwen: ${JSON.stringify(caFileOf(c.f.root))} is a file writable by group or others (mode 0666); fix: chmod go-w '${caFileOf(c.f.root)}'\n`,
    ]);
    expect(readRecord(c.stub)).toBeUndefined();
  });

  it('refuses to start when the user cannot read the pinned CA file (Node would skip it with a mere warning)', async () => {
    const c = fixture(node, {}, {}, `${TOKEN}\n`, true);
    fs.chmodSync(caFileOf(c.f.root), 0o600);
    const { exit, output } = await finished(launch(c, 'auto-recall'));
    expect([exit.exitCode, output]).toEqual([
      1,
      `launch-qwen: NODE_EXTRA_CA_CERTS ${JSON.stringify(caFileOf(c.f.root))} is not readable by you; fix: chmod a+r '${caFileOf(c.f.root)}'\n`,
    ]);
    expect(readRecord(c.stub)).toBeUndefined();
  });

  it('exits with the status Qwen exits with', async () => {
    const c = fixture(node, { exitCode: 7 });
    const session = launch(c, 'on-demand');
    expect(await session.waitForExit()).toEqual({ exitCode: 7, signal: 0 });
  });

  it.each([
    ['SIGTERM', 15],
    ['SIGINT', 2],
    ['SIGHUP', 1],
  ] as const)('%s sent to the launcher reaches Qwen, and the launcher ends by it', async (signal, number) => {
    const c = fixture(node, { waitForSignal: true });
    const session = launch(c, 'on-demand');
    await session.waitFor('STUB READY');
    process.kill(session.pid, signal);
    const exit = await session.waitForExit();
    expect(exit.signal).toBe(number);
    expect(fs.readFileSync(c.stub.signalRecord, 'utf8')).toBe(signal);
  });

  // Node reads OPENSSL_CONF before the launcher's first line and loads the engines the file names:
  // the shim clears it (policies/environment.json `prestart`), so no caller variable puts code there.
  it('the caller’s OPENSSL_CONF never reaches the launcher’s node: the engine library it names is not loaded', async () => {
    const c = fixture(node, {});
    const engine = opensslEngine(c.f.root);
    const session = suite.sessions.start(
      [c.f.shim, '--profile', 'on-demand'],
      { ...CALLER_ENV, OPENSSL_CONF: engine.conf },
      suite.user,
      suite.base,
    );
    const { exit, output } = await finished(session);
    expect([exit.exitCode, output]).toEqual([0, 'STUB DONE\n']);
    expect(fs.existsSync(engine.marker)).toBe(false);
    // Negative control: the same pinned node, started with that OPENSSL_CONF, loads the library.
    spawnSync(node, ['-e', ''], { env: { PATH: '/usr/bin:/bin', OPENSSL_CONF: engine.conf } });
    expect(fs.existsSync(engine.marker)).toBe(true);
  });

  it('runs exactly what `qwen-managed plan` prints', async () => {
    const c = fixture(node, {});
    const session = launch(c, 'on-demand');
    expect((await session.waitForExit()).exitCode).toBe(0);
    const record = await waitForRecord(c.stub);
    const report = await planReport(c.f.installDir, 'on-demand', CALLER_ENV, {
      userInfo: () => ({ homedir: suite.user.home }),
      fs,
      hostPlatform: process.platform,
      openclawSessions: readOpenclawSessions,
    });
    expect(report.argv).toEqual([node, ...record.argv]);
    expect(report.cwd).toBe(record.cwd);
    const secrets: Record<string, string> = { CONTEXT_API_TOKEN: TOKEN, OPENAI_API_KEY: MODEL_KEY };
    expect(
      Object.fromEntries(report.environment.map((e) => [e.name, e.redacted ? secrets[e.name] : e.value])),
    ).toEqual(record.env);
  });
});
