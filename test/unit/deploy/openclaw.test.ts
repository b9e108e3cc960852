// The openclaw-recall profile in deployment.json, render, verify and rollback: the admin's OpenClaw
// config with the managed keys merged in, the plugin package, and the checks that judge them.
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOpenclawSessions } from '../../../launcher/openclaw-sessions.js';
import { formatPlan, planReport } from '../../../src/cli/commands/plan.js';
import { installIdFor } from '../../../src/contracts/layout.js';
import { OPENCLAW_PLUGIN_BUNDLE } from '../../../src/contracts/runtime-files.js';
import { openclawConfigProblems } from '../../../src/deploy/deployment/openclaw.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import {
  managedOpenclawKeys,
  openclawConfigFor,
  withoutPlugin,
} from '../../../src/deploy/render/openclaw.js';
import { renderInstall } from '../../../src/deploy/render/render.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { rollbackInstall } from '../../../src/deploy/rollback/install.js';
import { loadInstallTree } from '../../../src/deploy/tree.js';
import {
  openclawTimeoutProblems,
  openclawConfigProblems as verifyConfigProblems,
} from '../../../src/deploy/verify/checks/openclaw.js';
import { openclawPackageProblems } from '../../../src/host/openclaw-checks.js';
import { openclawVersionFacts } from '../../../src/openclaw/versions.js';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import { deploymentProblems, exampleText, fakeRuntimes, LATER, NOW, TOOLKIT, tempDir } from './fixtures.js';

const PLUGIN_DIR = '/opt/qwen-managed/runtime/openclaw-recall';

async function exampleValue(): Promise<Record<string, any>> {
  return JSON.parse(await exampleText('openclaw-recall'));
}

function runtimes(): Map<string, Uint8Array> {
  const files = fakeRuntimes();
  files.set(OPENCLAW_PLUGIN_BUNDLE, new TextEncoder().encode('export default {};\n'));
  return files;
}

describe('deployment.json: openclaw block and openclaw-recall profile', () => {
  it('the example is valid', async () => {
    expect(deploymentProblems(await exampleValue())).toEqual([]);
  });

  it.each([
    [
      'plugins is managed',
      (c: any) => (c.plugins = { allow: ['other'] }),
      /openclaw\.config\.plugins = .*managed by render/,
    ],
    [
      'the default workspace is managed',
      (c: any) => (c.agents.defaults.workspace = '/tmp'),
      /agents\.defaults\.workspace = "\/tmp": is managed by render/,
    ],
    [
      '$include reads other files',
      (c: any) => (c.models.$include = './models.json5'),
      /openclaw\.config\.models\.\$include: makes OpenClaw read more configuration/,
    ],
    [
      'several agents without explicit ownership',
      (c: any) => (c.agents.entries = { main: {}, ops: {} }),
      /agents\.ownership: is not "explicit" for a roster of several agents/,
    ],
    [
      'agents listed without main',
      (c: any) => (c.agents.entries = { ops: {} }),
      /agents\.entries = \["ops"\]: lists agents but not "main"/,
    ],
    [
      'env.vars, which the repository’s .env overrides',
      (c: any) => (c.env = { vars: { ORG_ID: 'acme-secret-looking' } }),
      /^openclaw\.config\.env\.vars\.ORG_ID: is applied only when OpenClaw's environment lacks the name, after the repository's \.env had its turn.*Fix: set ORG_ID in environment\.set instead/,
    ],
    [
      'shellEnv imports the login shell',
      (c: any) => (c.env = { shellEnv: { enabled: true } }),
      /openclaw\.config\.env\.shellEnv = .*login shell/,
    ],
    [
      'a model endpoint from the environment',
      (c: any) => (c.models.providers.llm.baseUrl = '${LLM_URL}'),
      /baseUrl = "\$\{LLM_URL\}": must be a literal http\(s\) URL/,
    ],
    [
      'a model provider without an endpoint',
      (c: any) => delete c.models.providers.llm.baseUrl,
      /providers\.llm\.baseUrl: must be a literal/,
    ],
    // OpenClaw fills a variable its environment lacks from the repository's .env (measured).
    [
      'a header from a variable the launch does not set',
      (c: any) => (c.models.providers.llm.headers = { 'X-Org': 'org-${ORG_ID}' }),
      /providers\.llm\.headers\.X-Org = "org-\$\{ORG_ID\}": reads ORG_ID, which the managed launch does not set: OpenClaw would take it from the repository's \.env\. Fix: route a credential ORG_ID to "openclaw-recall"/,
    ],
    [
      'an env SecretRef the launch does not set',
      (c: any) => (c.models.providers.llm.apiKey = { source: 'env', provider: 'default', id: 'OTHER_KEY' }),
      /providers\.llm\.apiKey\.id = "<set>": reads OTHER_KEY, which the managed launch does not set/,
    ],
    [
      "the provider's credential (a rollback drops it)",
      (c: any) => (c.models.providers.llm.headers = { 'X-Kb': '${CONTEXT_API_TOKEN}' }),
      /headers\.X-Kb = "\$\{CONTEXT_API_TOKEN\}": reads CONTEXT_API_TOKEN, which the managed launch does not set/,
    ],
    // The model's exec and file tools would hand OpenClaw's environment (the provider token, the
    // model key) to the model (measured): render manages both keys, everywhere they can be set.
    [
      "OpenClaw's exec back on",
      (c: any) => (c.tools = { exec: { mode: 'full' } }),
      /^openclaw\.config\.tools\.exec: is managed by render \(tools\.exec\.mode "deny", tools\.fs\.workspaceOnly true\): OpenClaw's environment holds the provider token and the model key.*Fix: remove "exec"/,
    ],
    [
      'file tools outside the workspace for every agent',
      (c: any) => (c.agents.defaults.tools = { fs: { workspaceOnly: false } }),
      /^openclaw\.config\.agents\.defaults\.tools\.fs: is managed by render/,
    ],
    [
      "one agent's exec back on",
      (c: any) => {
        c.agents.ownership = 'explicit';
        c.agents.entries = { main: { tools: { exec: { mode: 'full' } } }, other: {} };
      },
      /^openclaw\.config\.agents\.entries\.main\.tools\.exec: is managed by render/,
    ],
  ])('refused: %s', async (_name, edit, message) => {
    const value = await exampleValue();
    edit(value.openclaw.config);
    expect(deploymentProblems(value)).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    [
      'the profile without the openclaw block',
      (d: any) => delete d.openclaw,
      /profiles\.openclaw-recall: needs OpenClaw/,
    ],
    [
      'the openclaw block without the profile',
      (d: any) => {
        d.profiles = { 'auto-recall': d.profiles['openclaw-recall'] };
      },
      /^openclaw: is set, but no openclaw-recall profile/,
    ],
    [
      'a cli that is not openclaw.mjs',
      (d: any) => (d.openclaw.cli = '/opt/openclaw/bin/openclaw'),
      /openclaw\.cli = .*is not OpenClaw's openclaw\.mjs/,
    ],
    [
      'a relative node',
      (d: any) => (d.openclaw.node = 'node'),
      /openclaw\.node = "node": is not an absolute posix path/,
    ],
    [
      'a timeout above the auto-recall bound',
      (d: any) => (d.profiles['openclaw-recall'].timeoutMs = 6000),
      /timeoutMs/,
    ],
  ])('refused: %s', async (_name, edit, message) => {
    const value = await exampleValue();
    edit(value);
    expect(deploymentProblems(value)).toContainEqual(expect.stringMatching(message));
  });

  it.each([
    ['a credential routed to the profile', (d: any) => d.openclaw.config.models.providers.llm.apiKey],
    [
      'a name in environment.set',
      (d: any) => {
        d.environment.set = { ORG_ID: 'acme' };
        d.openclaw.config.models.providers.llm.headers = { 'X-Org': '${ORG_ID}' };
      },
    ],
    [
      'an escaped literal $${NAME}',
      (d: any) => (d.openclaw.config.models.providers.llm.headers = { 'X-Doc': 'see $${ORG_ID}' }),
    ],
    ['HOME, from passwd', (d: any) => (d.openclaw.config.agents.defaults.model.note = '${HOME}')],
  ])('accepted: a variable the launch always sets — %s', async (_name, edit) => {
    const value = await exampleValue();
    edit(value);
    expect(deploymentProblems(value)).toEqual([]);
  });

  it('the provider credential is routed to the profile, a model key only when listed', async () => {
    const value = await exampleValue();
    delete value.credentials.LLM_API_KEY.profiles;
    expect(deploymentProblems(value)).toEqual([
      expect.stringMatching(/credentials\.LLM_API_KEY = .*named by no deployed provider/),
      // Unrouted, the model key's ${LLM_API_KEY} would come from the repository's .env (measured).
      expect.stringMatching(
        /providers\.llm\.apiKey = "<set>": reads LLM_API_KEY, which the managed launch does not set/,
      ),
    ]);
  });
});

describe('render', () => {
  it('openclaw.json: the admin config, keys sorted, with only the managed plugin, its permissions and timeout over it', async () => {
    const parsed = parseDeploymentValue(await exampleValue());
    const config = openclawConfigFor(parsed.deployment);
    expect(config['plugins']).toEqual({
      enabled: true,
      allow: ['qwen-managed-recall'],
      load: { paths: [PLUGIN_DIR] },
      entries: {
        'qwen-managed-recall': {
          enabled: true,
          hooks: {
            allowConversationAccess: true,
            allowPromptInjection: true,
            timeouts: { before_prompt_build: 8000 },
          },
          config: { configFile: '/opt/qwen-managed/profiles/openclaw-recall/external-context.json' },
        },
      },
    });
    expect(config['agents']).toEqual({
      defaults: { model: { primary: 'llm/qwen3-coder-plus' }, workspace: '/srv/repos/app' },
    });
    // Measured: with OpenClaw's defaults the model's exec and read handed it the provider token.
    expect(config['tools']).toEqual({ exec: { mode: 'deny' }, fs: { workspaceOnly: true } });
    expect(verifyConfigProblems(config, PLUGIN_DIR, true)).toEqual([]);
    expect(openclawTimeoutProblems(config, 1500)).toEqual([]);
  });

  it('writes the plugin package, the profile files and a version-2 provider config', async () => {
    const rendered = renderInstall(parseDeploymentValue(await exampleValue()), runtimes(), {
      toolkitVersion: TOOLKIT,
      adminUid: 0,
      now: NOW,
    });
    const names = [...rendered.files.keys()].filter((rel) => rel.includes('openclaw'));
    expect(names).toEqual([
      'profiles/openclaw-recall/external-context.json',
      'profiles/openclaw-recall/launch.json',
      'profiles/openclaw-recall/openclaw.json',
      'runtime/openclaw-recall/index.mjs',
      'runtime/openclaw-recall/openclaw.plugin.json',
      'runtime/openclaw-recall/package.json',
    ]);
    const text = (rel: string) => new TextDecoder().decode(rendered.files.get(rel)!.bytes);
    expect(JSON.parse(text('profiles/openclaw-recall/external-context.json'))).toEqual({
      version: 2,
      autoRecall: { repositoryRoot: '/srv/repos/app', timeoutMs: 1500 },
      provider: {
        type: 'generic-http-search-v1',
        baseUrl: 'https://context.example.com',
        tokenEnv: 'CONTEXT_API_TOKEN',
      },
    });
    expect(JSON.parse(text('runtime/openclaw-recall/package.json')).openclaw).toEqual({
      extensions: ['./index.mjs'],
      compat: { pluginApi: '>=2026.9.6' },
    });
    expect(JSON.parse(text('profiles/openclaw-recall/launch.json'))).toMatchObject({
      node: '/opt/node-24/bin/node',
      cli: '/opt/openclaw/node_modules/openclaw/openclaw.mjs',
      argv: ['agent', '--local', '--agent', 'main', '--message-file', '/dev/stdin'],
      cwd: '/srv/repos/app',
      environment: {
        files: { OPENCLAW_CONFIG_PATH: '/opt/qwen-managed/profiles/openclaw-recall/openclaw.json' },
      },
      credentials: {
        CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' },
        LLM_API_KEY: { file: '/etc/qwen-managed/llm.key' },
      },
    });
    expect(rendered.manifest.profiles).toEqual({ 'openclaw-recall': { state: 'active', changedAt: NOW } });
  });
});

describe('verify', () => {
  const active = () => ({ models: {}, ...managedOpenclawKeys(parseDeploymentValueSync()) });
  let parsedExample: ReturnType<typeof parseDeploymentValue>;
  function parseDeploymentValueSync() {
    return parsedExample.deployment;
  }

  it.each([
    [
      'the conversation permission missing',
      (c: any) => delete c.plugins.entries['qwen-managed-recall'].hooks.allowConversationAccess,
      /allowConversationAccess is not true: the permission the plugin needs/,
    ],
    [
      'prompt injection blocked',
      (c: any) => (c.plugins.entries['qwen-managed-recall'].hooks.allowPromptInjection = false),
      /allowPromptInjection is false/,
    ],
    [
      'another plugin allowed',
      (c: any) => c.plugins.allow.push('memory-core'),
      /plugins\.allow = .*must be exactly/,
    ],
    [
      'another load path',
      (c: any) => c.plugins.load.paths.push('/home/u/plugins'),
      /plugins\.load\.paths = .*must be exactly/,
    ],
    [
      'the plugin disabled',
      (c: any) => (c.plugins.entries['qwen-managed-recall'].enabled = false),
      /enabled is not true/,
    ],
    [
      'more than the hook needs',
      (c: any) => (c.plugins.entries['qwen-managed-recall'].llm = { allowModelOverride: true }),
      /grants more than the hook needs: llm/,
    ],
    [
      "OpenClaw's exec back on",
      (c: any) => (c.tools.exec.mode = 'full'),
      /^tools\.exec = \{"mode":"full"\}: must be \{"mode":"deny"\}/,
    ],
    [
      "an agent's own file tools",
      (c: any) => (c.agents.defaults.tools = { fs: { workspaceOnly: false } }),
      /^agents\.defaults\.tools\.fs is set: an agent's own tool settings would undo tools\.fs/,
    ],
  ])('openclaw.config: %s', async (_name, edit, message) => {
    parsedExample = parseDeploymentValue(await exampleValue());
    const config = JSON.parse(JSON.stringify(active()));
    edit(config);
    expect(verifyConfigProblems(config, PLUGIN_DIR, true)).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    [
      'host timeout below the plugin budget',
      3000,
      1500,
      /= 3000 ms is not above the plugin's own budget of 6500 ms/,
    ],
    [
      'provider timeout not below the budget',
      8000,
      6500,
      /autoRecall\.timeoutMs = 6500 ms is not below the plugin's budget/,
    ],
  ])('openclaw.timeouts: %s', async (_name, host, provider, message) => {
    parsedExample = parseDeploymentValue(await exampleValue());
    const config = JSON.parse(JSON.stringify(active()));
    config.plugins.entries['qwen-managed-recall'].hooks.timeouts.before_prompt_build = host;
    expect(openclawTimeoutProblems(config, provider)).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    ['supported', '2026.9.6', 'v24.22.3', []],
    [
      'an unsupported OpenClaw',
      '2026.8.1',
      'v24.22.3',
      [/is 2026\.8\.1, which this toolkit does not support/, /rendered for 2026\.9\.6/],
    ],
    [
      'Node 22',
      '2026.9.6',
      'v22.23.3',
      [/is v22\.23\.3; OpenClaw 2026\.9\.6 needs Node >= 24\.16\.0 and < 25/],
    ],
    ['Node 25', '2026.9.6', 'v25.0.0', [/needs Node >= 24\.16\.0 and < 25/]],
    ['a node that cannot be run', '2026.9.6', undefined, [/cannot be run/]],
  ])('the pinned OpenClaw package and Node: %s', (_name, openclaw, node, messages) => {
    const problems = openclawPackageProblems(
      { node: '/n', cli: '/p/openclaw.mjs', openclawVersion: '2026.9.6', argv: [...MANAGED_ARGV] },
      '/p/openclaw.mjs',
      node,
      packageFs({ name: 'openclaw', version: openclaw }),
    ).problems;
    expect(problems).toEqual(messages.map((m) => expect.stringMatching(m)));
  });

  it.each([
    ['not the openclaw package', { name: 'other', version: '2026.9.6' }, [/is not in the openclaw package/]],
    ['no package.json', undefined, [/is not in the openclaw package/]],
  ])('the pinned cli: %s', (_name, pkg, messages) => {
    const problems = openclawPackageProblems(
      { node: '/n', cli: '/p/openclaw.mjs', openclawVersion: '2026.9.6', argv: [...MANAGED_ARGV] },
      '/p/openclaw.mjs',
      'v24.22.3',
      packageFs(pkg),
    ).problems;
    expect(problems).toEqual(messages.map((m) => expect.stringMatching(m)));
  });

  it("an argv that is not the version's managed argv is refused", () => {
    const problems = openclawPackageProblems(
      { node: '/n', cli: '/p/openclaw.mjs', openclawVersion: '2026.9.6', argv: ['tui', '--local'] },
      '/p/openclaw.mjs',
      'v24.22.3',
      packageFs({ name: 'openclaw', version: '2026.9.6' }),
    ).problems;
    expect(problems).toEqual([expect.stringMatching(/is not the managed argv of OpenClaw 2026\.9\.6/)]);
  });

  it.each(['.openclaw-lifecycle-pending', 'dist/openclaw-install-guard'])(
    'a package installed without its scripts (%s there) is refused, naming the marker and the fix',
    (marker) => {
      const plan = {
        node: '/n',
        cli: '/p/openclaw.mjs',
        openclawVersion: '2026.9.6',
        argv: [...MANAGED_ARGV],
      };
      const pkg = { name: 'openclaw', version: '2026.9.6' };
      expect(openclawPackageProblems(plan, '/p/openclaw.mjs', 'v24.22.3', packageFs(pkg)).problems).toEqual(
        [],
      );
      expect(
        openclawPackageProblems(plan, '/p/openclaw.mjs', 'v24.22.3', packageFs(pkg, [`/p/${marker}`]))
          .problems,
      ).toEqual([
        `OpenClaw "/p/openclaw.mjs" was installed without its install scripts ("/p/${marker}" is there): OpenClaw runs them at its next start by writing into its package, which a developer cannot, so every start would end "package lifecycle is incomplete … permission denied (EACCES)" — as root, run "/n" "/p/openclaw.mjs" --version once (it completes them), or reinstall OpenClaw with its scripts enabled`,
      ]);
    },
  );
});

const MANAGED_ARGV = openclawVersionFacts('2026.9.6')!.managedArgv;

/** The pinned package as a file system: its package.json (none when undefined) and the files listed. */
function packageFs(pkg: object | undefined, files: readonly string[] = []) {
  const missing = () => Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
  return {
    readFileSync: () => {
      if (pkg === undefined) throw missing();
      return Buffer.from(JSON.stringify(pkg));
    },
    statSync: (file: string) => {
      if (!files.includes(file)) throw missing();
      return { isFile: () => true } as never;
    },
  };
}

describe('rollback', () => {
  it('withoutPlugin: the plugin out of allow, load paths and entries, plugins off, every other key kept', async () => {
    const config = openclawConfigFor(parseDeploymentValue(await exampleValue()).deployment);
    const after = withoutPlugin(config, PLUGIN_DIR);
    expect(after['plugins']).toEqual({ enabled: false, allow: [], load: { paths: [] }, entries: {} });
    expect(after['models']).toEqual(config['models']);
    expect(verifyConfigProblems(after, PLUGIN_DIR, false)).toEqual([]);
    expect(verifyConfigProblems(config, PLUGIN_DIR, false)).not.toEqual([]);
  });

  it('rolls the profile back in an install, and a re-render keeps it rolled back byte for byte', async () => {
    const parsed = parseDeploymentValue(await exampleValue());
    const dir = path.join(await tempDir(), 'install');
    const options = { toolkitVersion: TOOLKIT, adminUid: 0, now: NOW };
    await writeInstall(dir, renderInstall(parsed, runtimes(), options), { now: NOW });
    const outcome = await rollbackInstall({ dir, kind: 'openclaw-recall', now: LATER });
    expect(outcome.removedHooks).toEqual([{ event: 'plugin', name: 'qwen-managed-recall' }]);
    const config = JSON.parse(
      await fs.readFile(path.join(dir, 'profiles/openclaw-recall/openclaw.json'), 'utf8'),
    );
    expect(config.plugins).toEqual({ enabled: false, allow: [], load: { paths: [] }, entries: {} });
    const tree = await loadInstallTree(dir);
    expect(tree.manifest?.profiles['openclaw-recall']).toEqual({ state: 'rolled-back', changedAt: LATER });
    const { previousInstallOf } = await import('../../../src/deploy/tree.js');
    const again = renderInstall(parsed, runtimes(), {
      ...options,
      now: '2027-01-01T00:00:00.000Z',
      previous: previousInstallOf(tree)!,
    });
    for (const [rel, file] of again.files)
      expect(Buffer.from(file.bytes).equals(tree.files.get(rel)!.bytes), rel).toBe(true);
    expect(again.manifestText).toBe(tree.files.get('manifest.json')!.bytes.toString('utf8'));
    expect(again.notices).toEqual([
      'profile openclaw-recall: stays rolled back; render --reactivate to restore its external context',
    ]);
    await expect(
      rollbackInstall({ dir, kind: 'openclaw-recall', restoreConfig: '/x.json', now: LATER }),
    ).rejects.toThrow(/the openclaw-recall profile has none/);
  });
});

describe('openclawConfigProblems (render) accepts what the example holds', () => {
  it('no problems', async () => {
    expect(openclawConfigProblems((await exampleValue()).openclaw.config)).toEqual([]);
  });
});

describe("plan --profile openclaw-recall: the launcher's decision, as prepareLaunch makes it", () => {
  async function rendered(): Promise<{ dir: string; home: string }> {
    const dir = path.join(await tempDir(), 'install');
    const home = await tempDir();
    const parsed = parseDeploymentValue(await exampleValue());
    await writeInstall(
      dir,
      renderInstall(parsed, runtimes(), { toolkitVersion: TOOLKIT, adminUid: 0, now: NOW }),
      { now: NOW },
    );
    return { dir, home };
  }
  const deps = (home: string) => ({
    fs: fsSync,
    hostPlatform: 'linux' as const,
    userInfo: () => ({ ...os.userInfo(), homedir: home }),
    openclawSessions: readOpenclawSessions,
  });

  it('the pinned Node and OpenClaw, the managed argv, cwd, every variable built from nothing with its source, never a value', async () => {
    const { dir, home } = await rendered();
    const caller = {
      TERM: 'xterm',
      OPENCLAW_STATE_DIR: '/tmp/evil',
      OPENCLAW_CONFIG_PATH: '/tmp/evil.json',
      NODE_OPTIONS: '--require /tmp/evil.cjs',
      LLM_API_KEY: 'secret-from-caller',
    };
    const report = await planReport(dir, 'openclaw-recall', caller, deps(home));
    const stateDir = `${home}/.local/share/qwen-managed/${installIdFor('/opt/qwen-managed')}/openclaw-recall/home`;
    expect([report.agent, report.executable, report.argv, report.cwd]).toEqual([
      'openclaw',
      '/opt/node-24/bin/node',
      [
        '/opt/node-24/bin/node',
        '/opt/openclaw/node_modules/openclaw/openclaw.mjs',
        'agent',
        '--local',
        '--agent',
        'main',
        '--message-file',
        '/dev/stdin',
      ],
      '/srv/repos/app',
    ]);
    const forced = Object.entries(ENVIRONMENT_POLICY.forced).map(([name, value]) => ({
      name,
      value,
      source: 'forced',
    }));
    expect(report.environment).toEqual([
      { name: 'PATH', value: '/usr/local/bin:/usr/bin:/bin', source: 'plan-path' },
      { name: 'TERM', value: 'xterm', source: 'inherited' },
      {
        name: 'CONTEXT_API_TOKEN',
        value: '<redacted>',
        source: 'credential',
        redacted: true,
        from: 'file /etc/qwen-managed/context.token',
      },
      {
        name: 'LLM_API_KEY',
        value: '<redacted>',
        source: 'credential',
        redacted: true,
        from: 'file /etc/qwen-managed/llm.key',
      },
      ...forced,
      { name: 'HOME', value: home, source: 'passwd-home' },
      {
        name: 'OPENCLAW_CONFIG_PATH',
        value: '/opt/qwen-managed/profiles/openclaw-recall/openclaw.json',
        source: 'pinned-file',
      },
      { name: 'OPENCLAW_STATE_DIR', value: stateDir, source: 'state-dir' },
      { name: 'OPENCLAW_CONFIG_READONLY', value: '1', source: 'forced' },
      { name: 'OPENCLAW_NO_AUTO_UPDATE', value: '1', source: 'forced' },
      // openclaw.mjs's compile cache would be <tmpdir>/node-compile-cache, shared by every user of the host.
      { name: 'NODE_DISABLE_COMPILE_CACHE', value: '1', source: 'forced' },
    ]);
    expect(report.openclaw).toEqual({
      version: '2026.9.6',
      stateDir,
      refused: [],
      prompt: expect.stringContaining('Ctrl+D'),
    });
    expect(JSON.stringify(report)).not.toMatch(/secret-from-caller|evil/);
    const text = formatPlan(report);
    expect(text).toContain('Agent:       OpenClaw 2026.9.6');
    expect(text).toContain(`OPENCLAW_STATE_DIR=${stateDir}`);
    expect(text).toContain('the launcher would start OpenClaw');
  });

  it('a .env in the state directory: plan says the launcher would refuse, naming the file and why', async () => {
    const { dir, home } = await rendered();
    const stateDir = `${home}/.local/share/qwen-managed/${installIdFor('/opt/qwen-managed')}/openclaw-recall/home`;
    await fs.mkdir(stateDir, { recursive: true });
    await fs.writeFile(`${stateDir}/.env`, 'NODE_OPTIONS=--require /tmp/x.cjs\n');
    const report = await planReport(dir, 'openclaw-recall', {}, deps(home));
    expect(report.openclaw?.refused).toEqual([
      `"${stateDir}/.env": OpenClaw applies it to itself and to every program it starts, for each variable not already set (measured: a NODE_OPTIONS in it ran code in OpenClaw's child processes); the managed session gets its environment from the launcher only — remove it`,
    ]);
    expect(formatPlan(report)).toContain('the launcher would refuse to start:');
  });

  it("a stored session with permissionMode: plan reads the database with the launcher's reader and says what it would refuse, in its words", async () => {
    const { dir, home } = await rendered();
    const stateDir = `${home}/.local/share/qwen-managed/${installIdFor('/opt/qwen-managed')}/openclaw-recall/home`;
    const database = `${stateDir}/agents/main/agent/openclaw-agent.sqlite`;
    await fs.mkdir(path.dirname(database), { recursive: true });
    await fs.writeFile(database, '');
    const asked: unknown[] = [];
    const report = await planReport(
      dir,
      'openclaw-recall',
      {},
      {
        ...deps(home),
        openclawSessions: (node, file, keys) => {
          asked.push([node, file, keys]);
          return { entries: [{ key: 'agent:main:main', refused: { permissionMode: 'full' } }] };
        },
      },
    );
    expect(asked).toEqual([
      ['/opt/node-24/bin/node', database, ['permissionMode', 'sessionRoot', 'toolOverrides']],
    ]);
    expect(report.openclaw?.refused).toEqual([
      `"${database}": the session "agent:main:main" has permissionMode "full": ${openclawVersionFacts('2026.9.6')!.sessionStore.refusedEntryKeys['permissionMode']} — set the session back to Default in OpenClaw with this state directory, or remove "${database}" (and its -wal and -shm files) to start a new conversation`,
    ]);
  });

  it('an extensions directory in the state directory: plan says the launcher would refuse, naming it and why', async () => {
    const { dir, home } = await rendered();
    const stateDir = `${home}/.local/share/qwen-managed/${installIdFor('/opt/qwen-managed')}/openclaw-recall/home`;
    await fs.mkdir(`${stateDir}/extensions/shadow`, { recursive: true });
    const report = await planReport(dir, 'openclaw-recall', {}, deps(home));
    expect(report.openclaw?.refused).toEqual([
      `"${stateDir}/extensions": OpenClaw discovers every plugin in it, allowed or not, and refuses all plugins whose ids are equal but for case (measured: one with id QWEN-MANAGED-RECALL there, and the next turn ran without the managed plugin: no search, no context); the managed session loads no plugin but the rendered one — remove it`,
    ]);
  });
});
