// deployment.json `broker`: what render writes (broker.json, the drop-in, the provider configs and
// settings pointed at the listeners, launch plans that read no credential) and what it refuses.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokerUpstreamTimeoutMs } from '../../../src/base/limits.js';
import { BROKER_KEY } from '../../../src/contracts/broker.js';
import { brokerConfigSchema } from '../../../src/contracts/broker-config.js';
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { pinnedQwenFacts } from '../../../src/qwen/versions.js';
import { deploymentProblems, REPO, render, renderToDir, verifyInstall } from './fixtures.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const QWEN_HEADERS = pinnedQwenFacts(undefined).modelClients['openai']!.callerHeaders;

/** Every profile, every provider family, the model key as a file, a broker with its defaults. */
function brokered(edit: (d: Record<string, any>) => void = () => {}): Record<string, any> {
  const deployment: Record<string, any> = {
    version: 1,
    platform: 'posix',
    installDir: '/opt/qwen-managed/install',
    node: '/opt/qwen-managed/node/bin/node',
    qwenCli: '/opt/qwen-managed/qwen/node_modules/@qwen-code/qwen-code/cli.js',
    repositoryRoot: '/srv/repos/app',
    environment: { PATH: '/usr/bin:/bin', inherit: ['TERM'] },
    developers: { users: ['alice'], groups: ['devs'] },
    credentials: {
      CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' },
      MEM0_API_KEY: { file: '/etc/qwen-managed/mem0.key' },
      OPENAI_API_KEY: {
        file: '/etc/qwen-managed/model.key',
        profiles: ['on-demand', 'auto-recall', 'write'],
      },
    },
    settings: {
      model: { name: 'qwen3-coder-plus' },
      security: { auth: { selectedType: 'openai', baseUrl: 'https://llm.example.com/compatible-mode/v1' } },
    },
    broker: {},
    profiles: {
      'on-demand': {
        provider: {
          type: 'generic-http-search-v1',
          baseUrl: 'https://context.example.com',
          tokenEnv: 'CONTEXT_API_TOKEN',
        },
      },
      'auto-recall': {
        provider: {
          type: 'generic-http-search-v1',
          baseUrl: 'https://context.example.com/',
          tokenEnv: 'CONTEXT_API_TOKEN',
        },
        timeoutMs: 1500,
      },
      write: {
        provider: { type: 'mem0-platform-v3', apiKeyEnv: 'MEM0_API_KEY', appId: 'repository-memory' },
      },
    },
  };
  edit(deployment);
  return deployment;
}

function file(deployment: Record<string, any>, rel: string): any {
  return JSON.parse(text(render(parseDeploymentValue(deployment)).files.get(rel)?.bytes));
}

describe('render with a broker', () => {
  it('broker.json: one listener per profile and the model, the real origins, derived routes, nested deadlines', () => {
    const config = brokerConfigSchema.parse(file(brokered(), 'broker/broker.json'));
    expect(config).toEqual({
      version: 1,
      user: 'qwen-managed-broker',
      allow: { users: ['alice'], groups: ['devs'] },
      host: '127.0.0.1',
      credentials: {
        CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' },
        MEM0_API_KEY: { file: '/etc/qwen-managed/mem0.key' },
        OPENAI_API_KEY: { file: '/etc/qwen-managed/model.key' },
      },
      listeners: [
        {
          name: 'model',
          port: 940,
          upstream: 'https://llm.example.com',
          credential: 'OPENAI_API_KEY',
          header: { name: 'authorization', prefix: 'Bearer ' },
          maxBodyBytes: 64 * 1024 * 1024,
          routes: [{ method: 'POST', path: '/compatible-mode/v1/chat/completions' }],
          callerHeaders: [...QWEN_HEADERS],
        },
        {
          name: 'on-demand',
          port: 941,
          upstream: 'https://context.example.com',
          credential: 'CONTEXT_API_TOKEN',
          header: { name: 'authorization', prefix: 'Bearer ' },
          timeoutMs: brokerUpstreamTimeoutMs(5000),
          maxBodyBytes: 256 * 1024,
          routes: [{ method: 'POST', path: '/v1/context/search' }],
          callerHeaders: ['accept', 'user-agent'],
        },
        {
          name: 'auto-recall',
          port: 942,
          upstream: 'https://context.example.com',
          credential: 'CONTEXT_API_TOKEN',
          header: { name: 'authorization', prefix: 'Bearer ' },
          timeoutMs: brokerUpstreamTimeoutMs(1500),
          maxBodyBytes: 256 * 1024,
          routes: [{ method: 'POST', path: '/v1/context/search' }],
          callerHeaders: ['accept', 'user-agent'],
        },
        {
          name: 'write',
          port: 943,
          upstream: 'https://api.mem0.ai',
          credential: 'MEM0_API_KEY',
          header: { name: 'authorization', prefix: 'Token ' },
          timeoutMs: brokerUpstreamTimeoutMs(5000),
          maxBodyBytes: 256 * 1024,
          routes: [
            { method: 'POST', path: '/v3/memories/search/' },
            { method: 'POST', path: '/v3/memories/add/' },
          ],
          callerHeaders: ['accept', 'user-agent'],
        },
      ],
    });
    // Nested below the profile's own timeout: the runtime sees the broker's 504, never its own timeout.
    expect([
      brokerUpstreamTimeoutMs(1500),
      brokerUpstreamTimeoutMs(5000),
      brokerUpstreamTimeoutMs(2),
    ]).toEqual([1250, 4750, 1]);
  });

  it("the model listener forwards the pinned Qwen's own headers; a developer's customHeaders add none", () => {
    // Qwen's model.generationConfig has no customHeaders setting (its own are per modelProviders entry,
    // refused with a broker): render refuses the key, so no deployment widens the list.
    expect(() =>
      render(
        parseDeploymentValue(
          brokered((d) => {
            d.settings.model.generationConfig = { customHeaders: { 'OpenAI-Organization': 'org-x' } };
          }),
        ),
      ),
    ).toThrow(/customHeaders.*is not a Qwen Code 0\.24\.4 setting/);
    // Measured on each version against a loopback server (policies/qwen/versions.json): the OpenAI SDK's.
    expect(QWEN_HEADERS).toEqual([
      'accept',
      'accept-language',
      'sec-fetch-mode',
      'user-agent',
      'x-stainless-arch',
      'x-stainless-lang',
      'x-stainless-os',
      'x-stainless-package-version',
      'x-stainless-retry-count',
      'x-stainless-runtime',
      'x-stainless-runtime-version',
    ]);
  });

  it('a Mem0 preset behind a basePath: the routes carry it, the header is the preset’s; on-demand gets no write route', () => {
    const config = file(
      brokered((d) => {
        d.profiles = {
          'on-demand': {
            provider: {
              type: 'mem0',
              preset: 'mem0-oss-rest-2026-08',
              endpoint: { origin: 'https://mem0.example.com', basePath: '/mem0/' },
              credentialEnv: 'MEM0_API_KEY',
              scope: { userId: 'repo' },
            },
          },
        };
        d.credentials = { MEM0_API_KEY: d.credentials.MEM0_API_KEY };
        delete d.settings.security;
      }),
      'broker/broker.json',
    );
    expect(config.listeners).toEqual([
      expect.objectContaining({
        name: 'on-demand',
        upstream: 'https://mem0.example.com',
        header: { name: 'x-api-key', prefix: '' },
        routes: [{ method: 'POST', path: '/mem0/search' }],
      }),
    ]);
  });

  it('a dataworks-bff-memory-v1 provider: Bearer, its search route, and its write route for the write profile only', () => {
    const config = file(
      brokered((d) => {
        const provider = {
          type: 'dataworks-bff-memory-v1',
          baseUrl: 'https://bff.example.com',
          tokenEnv: 'DW_TOKEN',
        };
        d.profiles = { 'on-demand': { provider }, write: { provider } };
        d.credentials = { DW_TOKEN: { file: '/etc/qwen-managed/dw.token' } };
        delete d.settings.security;
      }),
      'broker/broker.json',
    );
    expect(config.listeners.map((l: { name: string; routes: unknown }) => [l.name, l.routes])).toEqual([
      ['on-demand', [{ method: 'POST', path: '/dmai/mem0MemoriesSearch' }]],
      [
        'write',
        [
          { method: 'POST', path: '/dmai/mem0MemoriesSearch' },
          { method: 'POST', path: '/dmai/mem0MemoriesAdd' },
        ],
      ],
    ]);
    expect(config.listeners[0].header).toEqual({ name: 'authorization', prefix: 'Bearer ' });
  });

  it('the runtimes call the listeners: provider origins rewritten, the legacy Mem0 block as its preset', () => {
    const d = brokered();
    expect(file(d, 'profiles/on-demand/external-context.json').provider).toEqual({
      type: 'generic-http-search-v1',
      baseUrl: 'http://127.0.0.1:941',
      tokenEnv: 'CONTEXT_API_TOKEN',
    });
    expect(file(d, 'profiles/write/external-context.json').provider).toEqual({
      type: 'mem0',
      preset: 'mem0-platform-v3',
      endpoint: { origin: 'http://127.0.0.1:943', basePath: '' },
      credentialEnv: 'MEM0_API_KEY',
      scope: { appId: 'repository-memory' },
    });
  });

  it("Qwen's model baseUrl is the model listener (same path) and its key the public broker key", () => {
    const auth = file(brokered(), 'profiles/auto-recall/system-settings.json').security.auth;
    expect(auth).toEqual({
      selectedType: 'openai',
      baseUrl: 'http://127.0.0.1:940/compatible-mode/v1',
      apiKey: BROKER_KEY,
    });
  });

  it('launch.json reads no credential: the broker block names the listeners and the variables set to the key', () => {
    const plan = launchPlanSchema.parse(file(brokered(), 'profiles/write/launch.json'));
    expect(plan.credentials).toEqual({});
    expect(plan.externalContext.credentials).toEqual(['MEM0_API_KEY']);
    expect(plan.broker).toEqual({
      user: 'qwen-managed-broker',
      host: '127.0.0.1',
      key: BROKER_KEY,
      listeners: [
        { name: 'model', port: 940 },
        { name: 'write', port: 943 },
      ],
      keyVariables: ['MEM0_API_KEY'],
    });
  });

  it('the systemd drop-in: the install, the user, one LoadCredential per credential', () => {
    const dropIn = text(
      render(parseDeploymentValue(brokered((d) => (d.broker = { user: 'qmb' })))).files.get(
        'broker/systemd.conf',
      )?.bytes,
    );
    expect(dropIn.split('\n').filter((l) => !l.startsWith('#'))).toEqual([
      '[Service]',
      'User=qmb',
      'Environment=QWEN_MANAGED_INSTALL_DIR=/opt/qwen-managed/install',
      'LoadCredential=CONTEXT_API_TOKEN:/etc/qwen-managed/context.token',
      'LoadCredential=MEM0_API_KEY:/etc/qwen-managed/mem0.key',
      'LoadCredential=OPENAI_API_KEY:/etc/qwen-managed/model.key',
      '',
    ]);
  });

  it('explicit ports and allow win over the defaults', () => {
    const config = file(
      brokered((d) => (d.broker = { allow: { users: ['bob'] }, ports: { model: 7001, write: 7002 } })),
      'broker/broker.json',
    );
    expect(config.allow).toEqual({ users: ['bob'], groups: [] });
    expect(config.listeners.map((l: { name: string; port: number }) => [l.name, l.port])).toEqual([
      ['model', 7001],
      ['on-demand', 941],
      ['auto-recall', 942],
      ['write', 7002],
    ]);
  });

  // WHATWG URL drops a scheme's default port: the runtime's provider origin for port 80 reads
  // "http://127.0.0.1", which verify compared with "http://127.0.0.1:80" and called misrouted.
  it.each([
    ['on-demand', 80, 'the default http port'],
    ['model', 80, 'the default http port'],
    ['on-demand', 81, 'the control'],
    ['model', 81, 'the control'],
  ])(
    'verify agrees with render on the %s listener at port %i (%s): broker.routing passes',
    async (listener, port) => {
      const deployment = brokered((d) => (d.broker = { ports: { [listener]: port } }));
      const report = await verifyInstall(await renderToDir(parseDeploymentValue(deployment)));
      const routing = report.checks.filter((c) => c.id === 'broker.routing');
      expect(routing.filter((c) => !c.ok).map((c) => c.message)).toEqual([]);
      expect(routing.length).toBeGreaterThan(0);
    },
  );

  it('without a broker nothing changes: no broker files, credentials routed by the launcher', () => {
    const d = brokered((x) => {
      delete x.broker;
    });
    const rendered = render(parseDeploymentValue(d));
    expect([...rendered.files.keys()].filter((k) => k.startsWith('broker/'))).toEqual([]);
    const plan = JSON.parse(text(rendered.files.get('profiles/on-demand/launch.json')?.bytes));
    expect(plan.broker).toBeUndefined();
    expect(Object.keys(plan.credentials)).toEqual(['CONTEXT_API_TOKEN', 'OPENAI_API_KEY']);
    expect(
      JSON.parse(text(rendered.files.get('profiles/on-demand/system-settings.json')?.bytes)).security.auth
        .baseUrl,
    ).toBe('https://llm.example.com/compatible-mode/v1');
  });
});

describe('what render refuses with a broker', () => {
  const problems = (edit: (d: Record<string, any>) => void) => deploymentProblems(brokered(edit));

  it('the control: the full example is accepted', () => {
    expect(problems(() => {})).toEqual([]);
  });

  it('the OpenClaw profile (its plugin would need the credential in the OpenClaw process)', async () => {
    const example = JSON.parse(
      await readFile(join(REPO, 'examples', 'deployments', 'openclaw-recall.json'), 'utf8'),
    );
    example.broker = { allow: { users: ['alice'] } };
    const found = deploymentProblems(example);
    expect(
      found.some((l) => /^profiles\.openclaw-recall: is not fronted by the credential broker yet/.test(l)),
      found.join('\n'),
    ).toBe(true);
  });

  it.each<[string, (d: Record<string, any>) => void, RegExp]>([
    [
      'a Windows deployment (no peer uid from Node)',
      (d) => {
        d.platform = 'windows';
      },
      /^broker: needs Linux: .*Fix: remove "broker" from the Windows deployment; Windows keeps the credentials routed by the launcher$/,
    ],
    [
      'an inherited credential',
      (d) => {
        d.credentials.OPENAI_API_KEY = { inherit: true, profiles: ['on-demand'] };
      },
      /^credentials\.OPENAI_API_KEY = .*: is taken from the developer's environment, but with a broker only the broker holds credentials/,
    ],
    [
      'a credential the broker would send nowhere',
      (d) => {
        d.credentials.GITHUB_TOKEN = { file: '/etc/qwen-managed/gh', profiles: ['on-demand'] };
      },
      /^credentials\.GITHUB_TOKEN = "GITHUB_TOKEN": is held by the broker but sent nowhere: no deployed provider names it, and the model key is OPENAI_API_KEY/,
    ],
    [
      'an apiKey in settings',
      (d) => {
        d.settings.security.auth.apiKey = 'sk-in-a-readable-file';
      },
      /^settings\.security\.auth\.apiKey = "<set>": puts a key into the system settings every developer can read/,
    ],
    [
      // Negative control (by hand): before problem() redacted, this printed ["sk-LEAK-arr"] in clear.
      'an apiKey of the wrong type in settings: its value is not printed',
      (d) => {
        d.settings.security.auth.apiKey = ['sk-LEAK-arr'];
      },
      /^settings\.security\.auth\.apiKey = "<set>": /,
    ],
    [
      'the model key also inherited from the environment',
      (d) => {
        d.environment.inherit.push('OPENAI_BASE_URL');
      },
      /^environment\.inherit\[1\] = "OPENAI_BASE_URL": would reach Qwen, which prefers it to the settings the broker renders/,
    ],
    [
      'modelProviders',
      (d) => {
        d.settings.modelProviders = {};
      },
      /^settings\.modelProviders: gives models their own baseUrl/,
    ],
    [
      'no baseUrl for the model key',
      (d) => {
        delete d.settings.security.auth.baseUrl;
      },
      /^settings\.security\.auth\.baseUrl: must be the model's real http\(s\) URL/,
    ],
    [
      'no one allowed',
      (d) => {
        delete d.developers;
      },
      /^broker\.allow: names no one who may use the broker/,
    ],
    [
      'root as the broker user',
      (d) => {
        d.broker.user = 'root';
      },
      /^broker\.user = "root": is root/,
    ],
    [
      'an allowed developer as the broker user',
      (d) => {
        d.broker.user = 'alice';
      },
      /^broker\.user = "alice": is also a user allowed to call the broker/,
    ],
    [
      'two listeners on one port',
      (d) => {
        d.broker.ports = { 'auto-recall': 941 };
      },
      /^broker\.ports\.auto-recall = 941: is also the port of the on-demand listener/,
    ],
    [
      // Measured in CI: the launcher's health check passed there, Qwen printed "fetch failed" and no
      // model request reached the broker.
      'the model listener on a port fetch() refuses',
      (d) => {
        d.broker.ports = { model: 993 };
      },
      /^broker\.ports\.model = 993: is a port fetch\(\) refuses to connect to \(a "bad port" of the Fetch standard\): every model request of Qwen through this listener would fail with "fetch failed"\. Fix: choose another port \(the default is 940\)$/,
    ],
    [
      'a provider listener on a port fetch() refuses',
      (d) => {
        d.broker.ports = { write: 601 };
      },
      /^broker\.ports\.write = 601: is a port fetch\(\) refuses to connect to .*Fix: choose another port \(the default is 943\)$/,
    ],
    [
      'a credential path systemd cannot carry',
      (d) => {
        d.credentials.MEM0_API_KEY = { file: '/etc/qwen managed/mem0.key' };
      },
      /^credentials\.MEM0_API_KEY\.file = .*cannot go into the broker's systemd drop-in/,
    ],
  ])('%s', (_name, edit, expected) => {
    const found = problems(edit);
    expect(found.join('\n')).not.toContain('sk-LEAK');
    expect(
      found.some((line) => expected.test(line)),
      found.join('\n'),
    ).toBe(true);
  });
});
