// A brokered install end to end, without Qwen: the BUILT CLI renders it; `qwen-managed broker --dir`
// starts as root and becomes a throwaway system user; the bundled runtimes and the launcher run as a
// real developer with exactly the environment the launcher builds. The e2e suite
// (test/e2e/managed/broker.test.ts) does the same with the real Qwen 0.24.4.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import { AUTO_RECALL_TIMEOUT_MS, HOOK_BUDGET_MS } from '../../../src/base/limits.js';
import { BROKER_KEY } from '../../../src/contracts/broker.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../../e2e/harness/users.js';
import {
  createBrokerUser,
  freePrivilegedPorts,
  removeBrokerUser,
  requestAs,
  type SystemUser,
} from '../../fixtures/broker.js';
import {
  callMcpToolAs,
  cli,
  cliAsync,
  copyToolkit,
  launchPlan,
  ownedDir,
  RunningBroker,
  runAs,
  sessionEnv,
} from '../../fixtures/broker-install.js';
import { FakeModel } from '../../fixtures/fake-model/server.js';
import {
  type FakeService,
  GENERIC_SEARCH_ROUTE,
  startGenericSearch,
  startMem0Platform,
} from '../../fixtures/fake-services/index.js';
import {
  node22Binary,
  pinNode,
  readRecord,
  Sessions,
  type Stub,
  writeStubQwen,
} from '../launcher/harness.js';

const TOKEN = 'ctx-broker-int-token-71c2a9';
const MEM0_KEY = 'm0-broker-int-key-2e90b4';
const MODEL_KEY = 'sk-broker-int-model-44aa17';
const SECRETS = [TOKEN, MEM0_KEY, MODEL_KEY];
const KB = 'Releases are cut on Tuesdays after two approvals.';

let root: string;
let dev: TestUser;
let other: TestUser;
let brokerUser: SystemUser;
let search: FakeService;
let platform: FakeService;
let model: FakeModel;
let node: string;
let stub: Stub;
let repo: string;
let installDir: string;
let secretFiles: Record<string, string>;
let ports: number[];
let broker: RunningBroker | undefined;
const sessions = new Sessions();

const runtime = (file: string) => path.join(installDir, 'runtime', file);
const hookAs = (user: TestUser, prompt = 'When are releases cut?') =>
  runAs(user, node, runtime('auto-recall.js'), {
    stdin: promptSubmitEvent(repo, { prompt, submitted_prompt: prompt }),
    env: sessionEnv(launchPlan(installDir, 'auto-recall'), user.home),
    cwd: repo,
  });
const searchAs = (user: TestUser) =>
  callMcpToolAs(user, node, runtime('mcp-server.js'), {
    env: sessionEnv(launchPlan(installDir, 'on-demand'), user.home),
    cwd: repo,
    tool: 'context_search',
    args: { query: 'When are releases cut?' },
  });
const noSecretIn = (text: string) => SECRETS.filter((s) => text.includes(s));

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync('/tmp/qme2e-brkint-'));
  fs.chmodSync(root, 0o755);
  dev = createThrowawayUser(path.join(ownedDir(path.join(root, 'dev'), 0o755), 'home'));
  other = createThrowawayUser(path.join(ownedDir(path.join(root, 'other'), 0o755), 'home'));
  brokerUser = createBrokerUser();
  search = await startGenericSearch({ token: TOKEN, documents: [{ id: 'kb-1', content: KB }] });
  platform = await startMem0Platform({ apiKey: MEM0_KEY });
  model = await FakeModel.start();
  node = pinNode(node22Binary(), path.join(root, 'node', 'bin', 'node'));
  stub = writeStubQwen(root, { exitCode: 0 }, dev);
  repo = ownedDir(path.join(root, 'repo'), 0o755, dev);
  const secrets = ownedDir(path.join(root, 'secrets'), 0o700);
  secretFiles = {};
  for (const [name, value] of [
    ['CONTEXT_API_TOKEN', TOKEN],
    ['MEM0_API_KEY', MEM0_KEY],
    ['OPENAI_API_KEY', MODEL_KEY],
  ] as const) {
    const file = path.join(secrets, name.toLowerCase());
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
    secretFiles[name] = file;
  }
  installDir = path.join(root, 'install');
  ports = await freePrivilegedPorts(4);
  const deployment = {
    version: 1,
    platform: 'posix',
    installDir,
    node,
    qwenCli: stub.cli,
    repositoryRoot: repo,
    environment: { PATH: '/usr/bin:/bin', inherit: ['TERM'] },
    developers: { users: [dev.name] },
    credentials: {
      CONTEXT_API_TOKEN: { file: secretFiles['CONTEXT_API_TOKEN'] },
      MEM0_API_KEY: { file: secretFiles['MEM0_API_KEY'] },
      OPENAI_API_KEY: {
        file: secretFiles['OPENAI_API_KEY'],
        profiles: ['on-demand', 'auto-recall', 'write'],
      },
    },
    settings: {
      model: { name: model.modelId },
      security: { auth: { selectedType: 'openai', baseUrl: model.baseUrl } },
    },
    broker: {
      user: brokerUser.name,
      ports: { model: ports[0], 'on-demand': ports[1], 'auto-recall': ports[2], write: ports[3] },
    },
    profiles: {
      'auto-recall': {
        provider: { type: 'generic-http-search-v1', baseUrl: search.url, tokenEnv: 'CONTEXT_API_TOKEN' },
        timeoutMs: AUTO_RECALL_TIMEOUT_MS.default,
      },
      'on-demand': {
        provider: { type: 'generic-http-search-v1', baseUrl: search.url, tokenEnv: 'CONTEXT_API_TOKEN' },
      },
      write: {
        provider: {
          type: 'mem0',
          preset: 'mem0-platform-v3',
          endpoint: { origin: platform.url },
          credentialEnv: 'MEM0_API_KEY',
          scope: { appId: 'repository-memory' },
        },
      },
    },
  };
  const file = path.join(root, 'deployment.json');
  fs.writeFileSync(file, JSON.stringify(deployment, null, 2));
  const rendered = cli(['render', '--deployment', file]);
  if (rendered.status !== 0) throw new Error(`render failed:\n${rendered.stdout}${rendered.stderr}`);
  broker = await RunningBroker.start(installDir);
});

afterEach(async () => {
  await sessions.killAll();
  search.unscript();
});

afterAll(async () => {
  await broker?.stop();
  await Promise.all([search?.close(), platform?.close(), model?.close()]);
  for (const user of [dev, other]) if (user) removeThrowawayUser(user);
  removeBrokerUser(brokerUser);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('the broker started as root', () => {
  it('binds its ports, then serves as its own system user', () => {
    expect(broker!.uid()).toBe(brokerUser.uid);
    expect(broker!.stderr).toContain(`serving as ${brokerUser.name} (uid ${brokerUser.uid})`);
  });

  it('no rendered file holds a credential value; the launch plans read none', () => {
    const files = spawnSync('grep', ['-rlF', ...SECRETS.flatMap((s) => ['-e', s]), installDir], {
      encoding: 'utf8',
    });
    expect(files.stdout).toBe('');
    for (const kind of ['on-demand', 'auto-recall', 'write'] as const)
      expect(launchPlan(installDir, kind).credentials).toEqual({});
  });
});

describe('a developer through the broker: the real credential reaches the provider, never the developer', () => {
  it('the auto-recall hook injects the context; the provider got the real token, the hook only the public key', async () => {
    const env = sessionEnv(launchPlan(installDir, 'auto-recall'), dev.home);
    expect(env['CONTEXT_API_TOKEN']).toBe(BROKER_KEY);
    expect(noSecretIn(JSON.stringify(env))).toEqual([]);
    const run = await hookAs(dev);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain(KB);
    expect(search.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(broker!.audit.at(-1)).toMatchObject({
      uid: dev.uid,
      user: dev.name,
      listener: 'auto-recall',
      decision: 'forwarded',
      status: 200,
    });
  });

  it('a token typed into the prompt is removed by the broker before it leaves (the hook no longer knows it)', async () => {
    const run = await hookAs(dev, `When are releases cut? my token is ${TOKEN}`);
    expect(run.code).toBe(0);
    const sent = search.requests.at(-1)!.body as { query: string };
    expect(sent.query).not.toContain(TOKEN);
    expect(sent.query).toContain('When are releases cut?');
  });

  it('the MCP server searches through the broker (on-demand)', async () => {
    const answer = await searchAs(dev);
    expect(answer.result.isError).not.toBe(true);
    expect(JSON.stringify(answer.result)).toContain(KB);
    expect(search.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('the write profile stores through the broker with the real Mem0 key', async () => {
    const answer = await callMcpToolAs(dev, node, runtime('mcp-server.js'), {
      env: sessionEnv(launchPlan(installDir, 'write'), dev.home),
      cwd: repo,
      tool: 'context_remember',
      args: { content: 'Releases need two approvals.' },
    });
    expect(JSON.stringify(answer.result)).toContain('accepted');
    const add = platform.requests.find((r) => r.route === '/v3/memories/add/')!;
    expect(add.headers.authorization).toBe(`Token ${MEM0_KEY}`);
  });

  it('the model listener: the model receives the real key, whatever Authorization the caller sent', async () => {
    const answer = await requestAs(dev, ports[0]!, {
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${BROKER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: model.modelId,
        stream: false,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(answer.status).toBe(200);
    expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${MODEL_KEY}`);
  });

  it('the launcher starts Qwen (a stub here) with no credential in its environment and NO_PROXY covering the broker', async () => {
    fs.rmSync(stub.record, { force: true });
    const session = sessions.start(
      [path.join(installDir, 'bin', 'launch-qwen'), '--profile', 'auto-recall'],
      { PATH: '/usr/bin:/bin', HOME: dev.home, TERM: 'xterm-256color', HTTP_PROXY: 'http://127.0.0.1:9' },
      dev,
      dev.home,
    );
    const exit = await session.waitForExit(60_000);
    expect(exit.exitCode, session.fullText()).toBe(0);
    const record = readRecord(stub)!;
    expect(noSecretIn(JSON.stringify(record.env))).toEqual([]);
    expect(record.env['CONTEXT_API_TOKEN']).toBe(BROKER_KEY);
    expect(record.env['NO_PROXY']).toBe('127.0.0.1');
    expect(record.env['no_proxy']).toBe('127.0.0.1');
    // Its health requests were the broker's to answer, as this developer.
    expect(
      broker!.audit.filter((a) => a.decision === 'health' && a.uid === dev.uid).length,
    ).toBeGreaterThanOrEqual(2);
  });
});

describe('refusals', () => {
  it('another local user is refused (the hook fails open) and audited under their uid', async () => {
    const before = search.requests.length;
    const run = await hookAs(other);
    expect([run.code, run.stdout]).toEqual([0, '{}']);
    expect(search.requests.length).toBe(before);
    expect(broker!.audit.at(-1)).toMatchObject({
      uid: other.uid,
      user: other.name,
      decision: 'refused',
      status: 403,
    });
  });

  it('another local user is refused by the launcher with the broker’s reason', async () => {
    fs.rmSync(stub.record, { force: true });
    const session = sessions.start(
      [path.join(installDir, 'bin', 'launch-qwen'), '--profile', 'auto-recall'],
      { PATH: '/usr/bin:/bin', HOME: other.home, TERM: 'xterm-256color' },
      other,
      other.home,
    );
    const exit = await session.waitForExit(60_000);
    expect(exit.exitCode).toBe(1);
    expect(session.fullText()).toContain(
      `launch-qwen: the credential broker refused you: user ${other.name} is not allowed to use the credential broker; ask your administrator to add you to broker.allow`,
    );
    expect(readRecord(stub)).toBeUndefined();
  });

  it("a path off a listener's route list is refused and never reaches the provider", async () => {
    const before = search.requests.length;
    const answer = await requestAs(dev, ports[2]!, { path: '/v1/context/search/../admin', body: '{}' });
    expect(answer.status).toBe(403);
    expect(search.requests.length).toBe(before);
    expect(broker!.audit.at(-1)).toMatchObject({
      uid: dev.uid,
      decision: 'refused',
      reason: 'this path is not on the route list of this listener',
    });
  });

  it('budgets nest: a provider that hangs gets the broker’s 504 before the hook’s own timeout, and the hook answers {}', async () => {
    search.script(GENERIC_SEARCH_ROUTE, { hang: true });
    const run = await hookAs(dev);
    expect([run.code, run.stdout]).toEqual([0, '{}']);
    expect(broker!.audit.at(-1)).toMatchObject({ listener: 'auto-recall', decision: 'failed', status: 504 });
    expect(run.elapsedMs).toBeLessThan(HOOK_BUDGET_MS);
  });
});

describe('probe and verify', () => {
  it('probe goes through the broker (as root, with the public key) and the provider answers', async () => {
    const result = await cliAsync(['probe', '--dir', installDir, '--profile', 'auto-recall', '--json']);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).probes).toEqual([
      expect.objectContaining({
        profile: 'auto-recall',
        shape: 'exact',
        ok: true,
        url: `http://127.0.0.1:${ports[2]}/v1/context/search`,
      }),
    ]);
    expect(broker!.audit.at(-1)).toMatchObject({ uid: 0, decision: 'forwarded' });
    expect(noSecretIn(result.stdout + result.stderr)).toEqual([]);
  });

  it('verify on the real install: the broker invariants hold', () => {
    const result = cli(['verify', '--dir', installDir, '--json', '--skip-smoke']);
    const checks = JSON.parse(result.stdout).checks as Array<{
      id: string;
      ok: boolean;
      severity: string;
      message: string;
    }>;
    const broker = checks.filter((c) => c.id.startsWith('broker.'));
    expect(broker.filter((c) => !c.ok)).toEqual([]);
    expect(new Set(broker.map((c) => c.id))).toEqual(
      new Set([
        'broker.config',
        'broker.routing',
        'broker.no-proxy',
        'broker.user',
        'broker.credentials',
        'broker.secrets',
        'broker.listeners',
      ]),
    );
    expect(noSecretIn(result.stdout + result.stderr)).toEqual([]);
  });

  it('negative control: a credential file the developer can read is a violation', () => {
    fs.chmodSync(secretFiles['MEM0_API_KEY']!, 0o644);
    fs.chmodSync(path.dirname(secretFiles['MEM0_API_KEY']!), 0o755);
    try {
      const result = cli(['verify', '--dir', installDir, '--json', '--skip-smoke']);
      expect(result.status).toBe(1);
      const failed = (
        JSON.parse(result.stdout).checks as Array<{ id: string; ok: boolean; message: string }>
      ).filter((c) => c.id === 'broker.credentials' && !c.ok);
      expect(failed.map((c) => c.message)).toEqual([
        expect.stringMatching(/credential file of MEM0_API_KEY .* is readable by every user/),
      ]);
    } finally {
      fs.chmodSync(secretFiles['MEM0_API_KEY']!, 0o600);
      fs.chmodSync(path.dirname(secretFiles['MEM0_API_KEY']!), 0o700);
    }
  });
});

describe('the broker stopped', () => {
  it('hook → {} within budget, the MCP tool reports a failure, the launcher refuses with its line', async () => {
    expect(await broker!.stop()).toBe(0);
    const hook = await hookAs(dev);
    expect([hook.code, hook.stdout]).toEqual([0, '{}']);
    expect(hook.elapsedMs).toBeLessThan(HOOK_BUDGET_MS);
    const tool = await searchAs(dev);
    expect(tool.result.isError).toBe(true);
    fs.rmSync(stub.record, { force: true });
    const session = sessions.start(
      [path.join(installDir, 'bin', 'launch-qwen'), '--profile', 'on-demand'],
      { PATH: '/usr/bin:/bin', HOME: dev.home, TERM: 'xterm-256color' },
      dev,
      dev.home,
    );
    const exit = await session.waitForExit(60_000);
    expect(exit.exitCode).toBe(1);
    // One line (the pty wraps it at 200 columns: joined back here).
    const text = session.fullText().replace(/\n/g, '');
    expect(text.split('launch-qwen:').length - 1).toBe(1);
    expect(text).toContain(
      `launch-qwen: the credential broker is not running: nothing listens on 127.0.0.1:${ports[0]} (model traffic), 127.0.0.1:${ports[1]} (the on-demand provider); ask your administrator to start the credential broker (systemctl start qwen-managed-broker.service)`,
    );
    expect(readRecord(stub)).toBeUndefined();
  });

  it('probe names the stopped broker, not only a provider that did not answer', async () => {
    const result = await cliAsync(['probe', '--dir', installDir, '--profile', 'auto-recall', '--json']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).probes).toEqual([
      expect.objectContaining({
        shape: 'no-answer',
        message: `the connection was refused (ECONNREFUSED): nothing listens at that address and port, from the credential broker's listener 127.0.0.1:${ports[2]}: is the broker running? (systemctl status qwen-managed-broker.service)`,
      }),
    ]);
  });

  // Negative control: before the start judged the files, both starts below served (measured: the
  // broker bound its ports and dropped to its user with a 0644 key in a 0755 directory).
  it('refuses to start while an allowed developer can read a credential file, or swap it (naming the file, who, the fix; never the value)', async () => {
    const file = secretFiles['MEM0_API_KEY']!;
    const secrets = path.dirname(file);
    const refusal = async () => {
      const started = await RunningBroker.start(installDir).then(
        async (b) => {
          await b.stop();
          return 'served';
        },
        (error: Error) => error.message,
      );
      expect(noSecretIn(started)).toEqual([]);
      return started;
    };
    fs.chmodSync(file, 0o644);
    fs.chmodSync(secrets, 0o755);
    try {
      expect(await refusal()).toContain(
        `credential file of MEM0_API_KEY "${file}" is readable by every user: the broker protects nothing; fix: chown root:root '${file}' && chmod 0600 '${file}'`,
      );
    } finally {
      fs.chmodSync(file, 0o600);
      fs.chmodSync(secrets, 0o700);
    }
    fs.chownSync(secrets, dev.uid, dev.gid);
    try {
      expect(await refusal()).toMatch(
        new RegExp(
          `credential file of \\w+ "${secrets}/\\w+" can be replaced by ${dev.name}, allowed to use the broker: "${secrets}" \\(directory, mode 0700, owner ${dev.name}\\) is theirs`,
        ),
      );
    } finally {
      fs.chownSync(secrets, 0, 0);
    }
  });

  // Measured before the start checked it: started from a copy under a 0700 directory (a clone in
  // /root), the broker served and then answered every request 502 — undici, loading its parser at the
  // first upstream request as the broker's user, could not read it.
  it('refuses to start from a toolkit its user cannot read (a copy under a 0700 directory), naming where and the fix; opened up, the same copy serves', async () => {
    const closed = ownedDir(path.join(root, 'closed'), 0o700);
    const toolkit = path.join(closed, 'toolkit');
    const copy = copyToolkit(toolkit);
    try {
      const refused = await RunningBroker.start(installDir, undefined, copy).then(
        async (b) => {
          await b.stop();
          return 'served';
        },
        (error: Error) => error.message,
      );
      expect(refused).toContain(
        `broker: as ${brokerUser.name} the broker cannot read "${toolkit}/node_modules/undici", where its HTTP client loads its parser at the first upstream request (every request would fail 502): "${closed}" is closed to it (a root-only directory, such as /root, on the way); run the broker from a toolkit ${brokerUser.name} can read`,
      );
      // Control: the same copy, its directory opened, starts and serves the developer.
      fs.chmodSync(closed, 0o755);
      const opened = await RunningBroker.start(installDir, undefined, copy);
      try {
        const hook = await hookAs(dev);
        expect(hook.stdout).toContain(KB);
      } finally {
        await opened.stop();
      }
    } finally {
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });

  it('started again with a stdout nobody reads: the first request stops it (exit 1, the reason on stderr), none passes unaudited after', async () => {
    broker = await RunningBroker.start(installDir);
    const exited = new Promise<number | null>((resolve) => broker!.child.once('exit', resolve));
    broker.child.stdout!.destroy();
    await hookAs(dev);
    expect(await exited).toBe(1);
    expect(broker.stderr).toMatch(
      /\nqwen-managed: broker: stopped: its audit lines cannot be written to stdout \(EPIPE\), and no request may go unaudited\. Fix: run it where its stdout is read \(systemd gives it the journal\), then start it again\n$/,
    );
    expect(broker.stderr).not.toMatch(/\n {4}at /);
    const after = await hookAs(dev);
    expect([after.code, after.stdout]).toEqual([0, '{}']);
  });
});
