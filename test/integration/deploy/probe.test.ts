// `qwen-managed probe`: the built CLI in a child process, against the repository's loopback fakes of
// the real services (Generic HTTP Search v1, Mem0 OSS, PolarDB), over install trees rendered by the
// CLI itself, with credentials in real 0600 files. Pins: one read-only search per profile (never a
// write route), the shape and scope verdicts, exit codes, and that neither the credential nor any
// byte of the answer reaches the output.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeService,
  GENERIC_SEARCH_ROUTE,
  OSS_SEARCH_ROUTE,
  POLARDB_SEARCH_ROUTE,
  startDataworksBff,
  startGenericSearch,
  startMem0Oss,
  startPolarDbMem0,
} from '../../fixtures/fake-services/index.js';
import type { FakeMem0Oss } from '../../fixtures/fake-services/mem0-oss.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';
import { REPO } from '../../unit/deploy/fixtures.js';

const CLI = path.join(REPO, 'dist', 'cli', 'qwen-managed.js');
const TOKEN = 'probe-secret-7f3a9c1e5b';
const MEM0_KEY = 'mem0-secret-2d8e4f6a0c';
const SECRET_MEMORY = 'the vault combination is 31-41-59';

let work: string;
let generic: FakeService;
let oss: FakeMem0Oss;
let polar: FakeService & { store: FakeMem0Oss['store'] };
let bff: FakeService & { store: FakeMem0Oss['store'] };
let proxy: LoopbackProxy;

// Async spawn: the fakes run in this process and must keep answering while the CLI waits.
function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'qm-probe-'));
  generic = await startGenericSearch({
    token: TOKEN,
    documents: [{ id: 'doc-1', title: 'Deploying', content: `How to deploy a provider: ${SECRET_MEMORY}` }],
  });
  oss = await startMem0Oss({ apiKey: MEM0_KEY });
  oss.store.add(SECRET_MEMORY, { user_id: 'alice' });
  oss.store.add('bob prefers tabs', { user_id: 'bob' });
  polar = await startPolarDbMem0({ apiKey: MEM0_KEY });
  polar.store.add(SECRET_MEMORY, { user_id: 'alice', agent_id: 'qwen' });
  bff = await startDataworksBff({ token: MEM0_KEY, forbiddenTokens: [TOKEN], items: { id: 'memory_id' } });
  bff.store.add(SECRET_MEMORY, { user_id: `bff:${MEM0_KEY}` });
  proxy = await startProxy();
  await fs.writeFile(path.join(work, 'context.token'), `${TOKEN}\n`, { mode: 0o600 });
  await fs.writeFile(path.join(work, 'mem0.key'), `${MEM0_KEY}\n`, { mode: 0o600 });
});

afterAll(async () => {
  await Promise.all([generic.close(), oss.close(), polar.close(), bff.close(), proxy.close()]);
  await fs.rm(work, { recursive: true, force: true });
});

/** Renders (with the CLI) a tree whose on-demand profile uses `onDemand` and auto-recall `autoRecall`. */
async function install(
  name: string,
  profiles: Record<string, unknown>,
  credentials: Record<string, unknown>,
  environment?: Record<string, unknown>,
) {
  const raw = JSON.parse(
    await fs.readFile(path.join(REPO, 'examples', 'deployments', 'on-demand.json'), 'utf8'),
  );
  raw.credentials = credentials;
  raw.profiles = profiles;
  if (environment !== undefined) raw.environment = { ...raw.environment, ...environment };
  raw.settings = undefined;
  await fs.writeFile(path.join(work, `${name}.json`), JSON.stringify(raw));
  const rendered = await run(['render', '--deployment', `${name}.json`, '--out', name]);
  expect(rendered.stderr).toBe('');
  expect(rendered.code).toBe(0);
  return path.join(work, name);
}

const genericProvider = () => ({
  type: 'generic-http-search-v1',
  baseUrl: generic.url,
  tokenEnv: 'CONTEXT_API_TOKEN',
});
const ossProvider = (scope: Record<string, string>) => ({
  type: 'mem0',
  preset: 'mem0-oss-rest-2026-08',
  endpoint: { origin: oss.url },
  credentialEnv: 'MEM0_API_KEY',
  scope,
});
const tokenFile = () => ({ CONTEXT_API_TOKEN: { file: path.join(work, 'context.token') } });
const keyFile = () => ({ MEM0_API_KEY: { file: path.join(work, 'mem0.key') } });

function noSecrets(output: string): void {
  for (const secret of [TOKEN, MEM0_KEY, SECRET_MEMORY, 'vault', 'bob prefers'])
    expect(output).not.toContain(secret);
}

describe('qwen-managed probe: one read-only search per profile, judged against the preset', () => {
  it('reports the exact shape, the honoured scope and the latency for Generic HTTP Search v1 and two Mem0 presets', async () => {
    const dir = await install(
      'good',
      {
        'on-demand': { provider: genericProvider() },
        'auto-recall': {
          provider: {
            type: 'mem0',
            preset: 'aliyun-polardb-mysql-2026-08',
            endpoint: { origin: polar.url },
            credentialEnv: 'MEM0_API_KEY',
            scope: { userId: 'alice', agentId: 'qwen' },
          },
        },
      },
      { ...tokenFile(), ...keyFile() },
    );
    const before = { generic: generic.requests.length, polar: polar.requests.length };
    const result = await run(['probe', '--dir', dir, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(
      report.probes.map((p: Record<string, unknown>) => ({ ...p, latencyMs: typeof p.latencyMs })),
    ).toEqual([
      {
        profile: 'on-demand',
        contract: 'generic-http-search-v1',
        url: `${generic.url}/v1/context/search`,
        ok: true,
        shape: 'exact',
        scope: 'not-applicable',
        results: 1,
        latencyMs: 'number',
        message: '1 result(s) in the exact shape; the contract has no scope',
      },
      {
        profile: 'auto-recall',
        contract: 'aliyun-polardb-mysql-2026-08',
        url: `${polar.url}/v2/memories/search`,
        ok: true,
        shape: 'exact',
        scope: 'honoured',
        results: 1,
        latencyMs: 'number',
        message: '1 result(s) in the exact shape; every result carries the configured user_id, agent_id',
      },
    ]);
    // Exactly one search each, with the real credential, and nothing else (no write route).
    expect(
      generic.requests.slice(before.generic).map((r) => [`${r.method} ${r.route}`, r.headers.authorization]),
    ).toEqual([[GENERIC_SEARCH_ROUTE, `Bearer ${TOKEN}`]]);
    expect(polar.requests.slice(before.polar).map((r) => `${r.method} ${r.route}`)).toEqual([
      POLARDB_SEARCH_ROUTE,
    ]);
    noSecrets(result.stdout + result.stderr);
    const plain = await run(['probe', '--dir', dir]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /OK {3}\[on-demand\] generic-http-search-v1 http:\/\/127\.0\.0\.1:\d+\/v1\/context\/search: shape exact, scope not-applicable, \d+ ms/,
    );
    expect(plain.stdout).toMatch(/probe \S+: OK — 2 of 2 provider\(s\) answer as configured/);
    noSecrets(plain.stdout);
  });

  it.each([
    {
      provider: 'answers the wrong shape',
      script: { json: { memories: [{ id: 'm1', memory: SECRET_MEMORY }] } },
      verdict: { ok: false, shape: 'wrong', scope: 'not-confirmed', results: null },
      message:
        'the answer is JSON but not {"results": [...]}: this endpoint does not speak mem0-oss-rest-2026-08',
    },
    {
      provider: 'answers results without content',
      script: { json: { results: [{ id: 'm1', text: SECRET_MEMORY }] } },
      verdict: { ok: false, shape: 'wrong', scope: 'not-confirmed', results: 1 },
      message:
        'result 1 lacks an id or a memory/content text: this endpoint does not speak mem0-oss-rest-2026-08',
    },
    {
      provider: 'ignores the scope',
      script: {
        json: {
          results: [
            { id: 'm1', memory: SECRET_MEMORY, user_id: 'alice' },
            { id: 'm2', memory: 'bob prefers tabs', user_id: 'bob' },
          ],
        },
      },
      verdict: { ok: false, shape: 'exact', scope: 'ignored', results: 2 },
      message: '2 result(s) in the exact shape; result 2 belongs to another user_id than the configured one',
    },
    {
      provider: 'returns results that carry no scope',
      script: { json: { results: [{ id: 'm1', memory: SECRET_MEMORY }] } },
      verdict: { ok: true, shape: 'exact', scope: 'not-confirmed', results: 1 },
      message: '1 result(s) in the exact shape; no result carries user_id',
    },
    {
      provider: 'refuses the credential',
      script: { status: 403, json: { detail: 'Invalid API key' } },
      verdict: { ok: false, shape: 'no-answer', scope: 'not-confirmed', results: null },
      // Negative control (by hand): the message stopped at "(the credential was refused)", naming
      // neither the credential nor where it comes from.
      message: expect.stringMatching(
        /^the provider answered HTTP 403 \(the credential was refused\)\. Fix: put the key this service expects into the file of credentials\.MEM0_API_KEY, "\/\S+\/mem0\.key"$/,
      ),
    },
  ])('a Mem0 provider that $provider', async ({ script, verdict, message }) => {
    const dir = await install(
      `oss-${Math.random().toString(36).slice(2)}`,
      { 'on-demand': { provider: ossProvider({ userId: 'alice' }) } },
      keyFile(),
    );
    oss.script(OSS_SEARCH_ROUTE, script);
    const before = oss.requests.length;
    try {
      const result = await run(['probe', '--dir', dir, '--json']);
      expect(result.code).toBe(verdict.ok ? 0 : 1);
      const [probe] = JSON.parse(result.stdout).probes;
      expect({
        ok: probe.ok,
        shape: probe.shape,
        scope: probe.scope,
        results: probe.results,
        message: probe.message,
      }).toEqual({
        ...verdict,
        message,
      });
      expect(oss.requests.slice(before).map((r) => [`${r.method} ${r.route}`, r.body])).toEqual([
        [OSS_SEARCH_ROUTE, { query: 'qwen-managed provider probe', top_k: 5, filters: { user_id: 'alice' } }],
      ]);
      noSecrets(result.stdout + result.stderr);
    } finally {
      oss.unscript();
    }
  });

  it('the wrong preset for a real service: mem0-platform-v3 aimed at the Mem0 OSS server is a 404, named as such', async () => {
    const dir = await install(
      'wrong-preset',
      {
        'on-demand': {
          provider: {
            type: 'mem0',
            preset: 'mem0-platform-v3',
            endpoint: { origin: oss.url },
            credentialEnv: 'MEM0_API_KEY',
            scope: { appId: 'payments' },
          },
        },
      },
      keyFile(),
    );
    const result = await run(['probe', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /FAIL \[on-demand\] mem0-platform-v3 http:\/\/127\.0\.0\.1:\d+\/v3\/memories\/search\/: shape no-answer, scope not-confirmed, \d+ ms — the provider answered HTTP 404 \(no such path: wrong preset or basePath\?\)/,
    );
    noSecrets(result.stdout + result.stderr);
  });

  it('negative control: the unscripted Mem0 OSS fake honours the scope (only alice comes back)', async () => {
    const dir = await install(
      'oss-real',
      { 'on-demand': { provider: ossProvider({ userId: 'alice' }) } },
      keyFile(),
    );
    const result = await run(['probe', '--dir', dir, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).probes[0]).toMatchObject({
      ok: true,
      shape: 'exact',
      scope: 'honoured',
      results: 1,
    });
  });

  it.each([
    {
      mistake: 'an inherited credential that is not set',
      credentials: { CONTEXT_API_TOKEN: { inherit: true } },
      stderr:
        /probe: CONTEXT_API_TOKEN is inherited from the caller's environment and is not set here\. Fix: export CONTEXT_API_TOKEN before running probe/,
    },
    {
      mistake: 'a credential file that does not exist',
      credentials: { CONTEXT_API_TOKEN: { file: '/nonexistent/qm-probe.token' } },
      stderr:
        /probe: cannot read the credential file of CONTEXT_API_TOKEN, \/nonexistent\/qm-probe\.token \(ENOENT\)/,
    },
  ])('$mistake: exit 1 naming the variable and the fix, nothing sent', async ({ credentials, stderr }) => {
    const dir = await install(
      `cred-${Math.random().toString(36).slice(2)}`,
      { 'on-demand': { provider: genericProvider() } },
      credentials,
    );
    const before = generic.requests.length;
    const result = await run(['probe', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(stderr);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(generic.requests.length).toBe(before);
  });

  it('with the inherited credential set, the probe sends it', async () => {
    const dir = await install(
      'inherit',
      { 'on-demand': { provider: genericProvider() } },
      { CONTEXT_API_TOKEN: { inherit: true } },
    );
    const result = await run(['probe', '--dir', dir, '--json'], { CONTEXT_API_TOKEN: TOKEN });
    expect(result.code).toBe(0);
    noSecrets(result.stdout);
  });

  it("openclaw-recall: the plugin's provider, through the same request description, with the token the launcher gives OpenClaw; the model key is never used", async () => {
    const raw = JSON.parse(
      await fs.readFile(path.join(REPO, 'examples', 'deployments', 'openclaw-recall.json'), 'utf8'),
    );
    raw.credentials = {
      ...tokenFile(),
      LLM_API_KEY: { file: path.join(work, 'mem0.key'), profiles: ['openclaw-recall'] },
    };
    raw.profiles['openclaw-recall'].provider = genericProvider();
    await fs.writeFile(path.join(work, 'openclaw.json'), JSON.stringify(raw));
    const rendered = await run(['render', '--deployment', 'openclaw.json', '--out', 'openclaw']);
    expect(rendered.code, rendered.stderr).toBe(0);
    const before = generic.requests.length;
    const result = await run([
      'probe',
      '--dir',
      path.join(work, 'openclaw'),
      '--profile',
      'openclaw-recall',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).probes).toEqual([
      {
        profile: 'openclaw-recall',
        contract: 'generic-http-search-v1',
        url: `${generic.url}/v1/context/search`,
        ok: true,
        shape: 'exact',
        scope: 'not-applicable',
        results: 1,
        latencyMs: expect.any(Number),
        message: '1 result(s) in the exact shape; the contract has no scope',
      },
    ]);
    expect(
      generic.requests.slice(before).map((r) => [`${r.method} ${r.route}`, r.headers.authorization]),
    ).toEqual([[GENERIC_SEARCH_ROUTE, `Bearer ${TOKEN}`]]);
    noSecrets(result.stdout);
  });
});

describe('qwen-managed probe: the DataWorks BFF (dataworks-bff-memory-v1)', () => {
  const bffProvider = () => ({ type: 'dataworks-bff-memory-v1', baseUrl: bff.url, tokenEnv: 'MEM0_API_KEY' });

  it('one search with the Bearer token: the envelope and its items in the exact shape (memory_id ids); no scope on the wire', async () => {
    const dir = await install('bff', { 'on-demand': { provider: bffProvider() } }, keyFile());
    const before = bff.requests.length;
    const result = await run(['probe', '--dir', dir, '--json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout).probes).toEqual([
      expect.objectContaining({
        profile: 'on-demand',
        contract: 'dataworks-bff-memory-v1',
        url: `${bff.url}/dmai/mem0MemoriesSearch`,
        ok: true,
        shape: 'exact',
        scope: 'not-applicable',
        results: 1,
      }),
    ]);
    expect(
      bff.requests.slice(before).map((r) => [`${r.method} ${r.route}`, r.headers.authorization]),
    ).toEqual([['POST /dmai/mem0MemoriesSearch', `Bearer ${MEM0_KEY}`]]);
    noSecrets(result.stdout + result.stderr);
  });

  it('a token the BFF refuses in its envelope (HTTP 200, code 403): no answer, exit 1, never the message', async () => {
    await fs.writeFile(path.join(work, 'bff-readonly.token'), `${TOKEN}\n`, { mode: 0o600 });
    const dir = await install(
      'bff-refused',
      { 'on-demand': { provider: bffProvider() } },
      { MEM0_API_KEY: { file: path.join(work, 'bff-readonly.token') } },
    );
    const result = await run(['probe', '--dir', dir, '--json']);
    expect(result.code).toBe(1);
    const [probe] = JSON.parse(result.stdout).probes;
    expect(probe).toMatchObject({ ok: false, shape: 'no-answer', results: null });
    expect(probe.message).toMatch(/refused/);
    expect(result.stdout).not.toContain('no permission for memories');
    noSecrets(result.stdout + result.stderr);
  });
});

describe('qwen-managed probe: a tree or a credential it cannot use is refused, naming the file and the fix', () => {
  const DEFECTS: Array<{
    defect: string;
    spoil(dir: string): Promise<void>;
    stderr: RegExp;
  }> = [
    {
      defect: 'a launch.json that does not match its schema',
      spoil: (dir) => fs.writeFile(path.join(dir, 'profiles/on-demand/launch.json'), '{"version": 1}'),
      stderr:
        /^qwen-managed: probe: \S+\/profiles\/on-demand\/launch\.json does not match its schema \(profile: .*\)\. Fix: re-render the deployment \(`qwen-managed verify --dir \S+` shows what changed\)\n$/,
    },
    {
      defect: 'a provider config that does not match its schema',
      spoil: (dir) =>
        fs.writeFile(
          path.join(dir, 'profiles/on-demand/external-context.json'),
          JSON.stringify({ version: 1, timeoutMs: 5000, provider: { type: 'generic-http-search-v1' } }),
        ),
      stderr:
        /^qwen-managed: probe: \S+\/profiles\/on-demand\/external-context\.json: The external context configuration does not match the schema \(at provider\.baseUrl\)\. Fix: re-render the deployment \(`qwen-managed verify --dir \S+` shows what changed\)\n$/,
    },
    {
      defect: 'a provider config that is gone',
      spoil: (dir) => fs.rm(path.join(dir, 'profiles/on-demand/external-context.json')),
      stderr:
        /^qwen-managed: probe: cannot read \S+\/profiles\/on-demand\/external-context\.json \(ENOENT\)\. Fix: re-render the deployment \(`qwen-managed verify --dir \S+` shows what changed\)\n$/,
    },
    {
      defect: 'a credential file that is a directory',
      spoil: async () => {
        await fs.mkdir(path.join(work, 'token-dir'), { recursive: true });
      },
      stderr:
        /^qwen-managed: probe: cannot read the credential file of CONTEXT_API_TOKEN, \S+\/token-dir \(EISDIR\)\. Fix: put the secret into that file \(one line\), or point credentials\.CONTEXT_API_TOKEN of deployment\.json at the file that holds it and render again\n$/,
    },
    {
      defect: 'a credential with a line break inside',
      spoil: () =>
        fs.writeFile(path.join(work, 'two-lines.token'), `${TOKEN}\nsecond-line\n`, { mode: 0o600 }),
      stderr:
        /^qwen-managed: probe: the credential CONTEXT_API_TOKEN holds a line break, which no HTTP header can carry \(every request of the runtimes would fail\)\. Fix: write only the secret, on one line, into \S+\/two-lines\.token\n$/,
    },
  ];

  it.each(DEFECTS)(
    '$defect: exit 1, one message naming the file and the fix, nothing sent',
    async ({ defect, spoil, stderr }) => {
      const credential = defect.includes('directory')
        ? path.join(work, 'token-dir')
        : defect.includes('line break')
          ? path.join(work, 'two-lines.token')
          : path.join(work, 'context.token');
      const dir = await install(
        `spoilt-${Math.random().toString(36).slice(2)}`,
        { 'on-demand': { provider: genericProvider() } },
        { CONTEXT_API_TOKEN: { file: credential } },
      );
      await spoil(dir);
      const before = generic.requests.length;
      const result = await run(['probe', '--dir', dir]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(stderr);
      expect(generic.requests.length).toBe(before);
      noSecrets(result.stderr);
    },
  );
});

describe('qwen-managed probe: a provider it cannot reach is named by why, not only "no answer"', () => {
  let tlsServer: https.Server;
  let tlsUrl: string;
  let closedUrl: string;
  beforeAll(async () => {
    tlsServer = https.createServer(createTestCertificate(), (_req, res) => res.end('{"items":[]}'));
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    tlsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
    // A port that was free a moment ago: nothing listens there.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(() => new Promise((resolve) => tlsServer.close(resolve)));

  it.each([
    {
      provider: 'behind a certificate no CA here vouches for',
      baseUrl: () => tlsUrl,
      message:
        'its TLS certificate is not trusted here (DEPTH_ZERO_SELF_SIGNED_CERT); a private CA is pinned with "tls": {"extraCaCertificates": …} in deployment.json',
    },
    {
      provider: 'spoken to in plain http on an https port',
      baseUrl: () => tlsUrl.replace('https:', 'http:'),
      message:
        'the connection closed before an answer: is it the service, and the scheme (http or https), you meant?',
    },
    {
      provider: 'where nothing listens',
      baseUrl: () => closedUrl,
      message: 'the connection was refused (ECONNREFUSED): nothing listens at that address and port',
    },
  ])('$provider', async ({ baseUrl, message }) => {
    const dir = await install(
      `unreachable-${Math.random().toString(36).slice(2)}`,
      {
        'on-demand': {
          provider: { type: 'generic-http-search-v1', baseUrl: baseUrl(), tokenEnv: 'CONTEXT_API_TOKEN' },
        },
      },
      tokenFile(),
    );
    const result = await run(['probe', '--dir', dir, '--json']);
    expect([result.code, result.stderr]).toEqual([1, '']);
    expect(JSON.parse(result.stdout).probes[0]).toMatchObject({ ok: false, shape: 'no-answer', message });
    noSecrets(result.stdout);
  });
});

describe('qwen-managed probe: a tree staged for Windows is probed on Windows', () => {
  it('refuses it on this POSIX machine, naming the platform and the fix, before reading a credential', async () => {
    const rendered = await run([
      'render',
      '--deployment',
      path.join(REPO, 'examples', 'deployments', 'windows.json'),
      '--out',
      'windows',
    ]);
    expect(rendered.code, rendered.stderr).toBe(0);
    const result = await run(['probe', '--dir', 'windows']);
    expect([result.code, result.stdout, result.stderr]).toEqual([
      1,
      '',
      `qwen-managed: probe: ${path.join(work, 'windows')} was rendered for windows (a staged \`render --out\`); this machine is posix. Fix: run probe on a windows machine the tree is installed on\n`,
    ]);
  });
});

describe('qwen-managed probe: a rolled-back profile sends no search, and probe says so', () => {
  // Negative control (by hand): the fix read `qwen-managed render --reactivate`, which render refuses
  // as a usage error (--deployment is required), and with every profile rolled back there was none.
  it('names each profile with its state, and the fix as a command that runs', async () => {
    const dir = await install(
      'rolled-back',
      { 'on-demand': { provider: genericProvider() }, 'auto-recall': { provider: genericProvider() } },
      tokenFile(),
    );
    expect((await run(['rollback', '--dir', dir, '--profile', 'auto-recall'])).code).toBe(0);
    const asked = await run(['probe', '--dir', dir, '--profile', 'auto-recall']);
    expect([asked.code, asked.stdout, asked.stderr]).toEqual([
      1,
      '',
      `qwen-managed: probe: ${dir} has no active auto-recall profile to probe (deployed: on-demand active, auto-recall rolled back). Fix: \`qwen-managed render --deployment '${path.join(work, 'rolled-back.json')}' --out '${dir}' --reactivate\` makes auto-recall active again\n`,
    ]);
    expect((await run(['rollback', '--dir', dir, '--profile', 'on-demand'])).code).toBe(0);
    const all = await run(['probe', '--dir', dir]);
    expect([all.code, all.stdout, all.stderr]).toEqual([
      1,
      '',
      `qwen-managed: probe: ${dir} has no active profile to probe (deployed: on-demand rolled back, auto-recall rolled back). Fix: \`qwen-managed render --deployment '${path.join(work, 'rolled-back.json')}' --out '${dir}' --reactivate\` makes every rolled-back profile active again\n`,
    ]);
    // The fix, as printed, runs: both profiles are active again.
    const fix = /`qwen-managed (render [^`]+)`/.exec(all.stderr)![1]!.replaceAll("'", '').split(' ');
    expect((await run(fix)).code).toBe(0);
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8'));
    expect(Object.values(manifest.profiles).map((p) => (p as { state: string }).state)).toEqual([
      'active',
      'active',
    ]);
  });
});

describe("qwen-managed probe: the proxy variables are the launched session's, not the administrator's shell's", () => {
  // The deployment without the example's NO_PROXY, so a proxy would carry the loopback search.
  const noNoProxy = (extra: Record<string, unknown>) => ({ inherit: ['TERM'], set: {}, ...extra });

  it.each([
    {
      session: "a proxy only in the administrator's shell (the deployment does not inherit it): direct",
      environment: () => noNoProxy({}),
      shell: () => ({ HTTP_PROXY: proxy.url }),
      proxied: 0,
    },
    {
      session: 'a proxy the deployment sets, none in the shell: through the proxy',
      environment: () => noNoProxy({ set: { HTTP_PROXY: proxy.url } }),
      shell: () => ({}),
      proxied: 1,
    },
    {
      session: 'a proxy the deployment inherits from the shell: through the proxy',
      environment: () => noNoProxy({ inherit: ['TERM', 'HTTP_PROXY'] }),
      shell: () => ({ HTTP_PROXY: proxy.url }),
      proxied: 1,
    },
    {
      session: "the deployment's NO_PROXY, not the shell's, beside the proxy it inherits: direct",
      environment: () => noNoProxy({ inherit: ['HTTP_PROXY'], set: { NO_PROXY: '127.0.0.1' } }),
      shell: () => ({ HTTP_PROXY: proxy.url, NO_PROXY: 'example.com' }),
      proxied: 0,
    },
  ])('$session', async ({ environment, shell, proxied }) => {
    const dir = await install(
      `proxy-${Math.random().toString(36).slice(2)}`,
      { 'on-demand': { provider: genericProvider() } },
      tokenFile(),
      environment(),
    );
    const before = { proxy: proxy.requests.length, generic: generic.requests.length };
    const result = await run(['probe', '--dir', dir, '--json'], shell());
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(generic.requests.length - before.generic).toBe(1);
    expect(proxy.requests.slice(before.proxy).map((r) => [r.kind, r.target])).toEqual(
      proxied === 0 ? [] : [['forward', `${generic.url}/v1/context/search`]],
    );
  });

  it('a session proxy that is not a URL: exit 1 naming the variable and where to fix it, never its value', async () => {
    const dir = await install(
      'proxy-invalid',
      { 'on-demand': { provider: genericProvider() } },
      tokenFile(),
      noNoProxy({ inherit: ['TERM', 'HTTP_PROXY'] }),
    );
    const result = await run(['probe', '--dir', dir], { HTTP_PROXY: 'http://svc:proxy-pass-4e1d@[::1' });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      'qwen-managed: probe: profile on-demand: HTTP_PROXY is not an absolute http(s) proxy URL. Fix: correct it where the session gets it (environment.set of deployment.json, then render again; or your own environment, for a name deployment.json inherits)\n',
    );
  });
});
