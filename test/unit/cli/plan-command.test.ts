import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnv } from '../../../launcher/env.js';
import { readOpenclawSessions } from '../../../launcher/openclaw-sessions.js';
import type { CliIO } from '../../../src/cli/command.js';
import { InputError, UsageError } from '../../../src/cli/command-errors.js';
import { planCommand, planReport, REDACTED } from '../../../src/cli/commands/plan.js';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import {
  buildInstallDir,
  type InstallFixture,
  type InstallFixtureOptions,
} from '../../fixtures/install-dir.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';

const HOME = '/home/admin';
const SECRET = 'sk-secret-Zx81Qm';
const deps = {
  userInfo: () => ({ homedir: HOME }),
  fs,
  hostPlatform: 'linux' as const,
  openclawSessions: readOpenclawSessions,
};
const command = planCommand(deps);
const CALLER = {
  TERM: 'xterm-256color',
  OPENAI_API_KEY: SECRET,
  NODE_OPTIONS: '--require x',
  HOME: '/elsewhere',
};
const FORCED_ENTRIES = Object.entries(ENVIRONMENT_POLICY.forced).map(([name, value]) => ({
  name,
  value,
  source: 'forced',
}));

let base: string;
let counter = 0;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-plan-')));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function fixture(options: Partial<InstallFixtureOptions> = {}): InstallFixture {
  const root = path.join(base, `f${counter++}`);
  fs.mkdirSync(root);
  const bundle = path.join(root, 'bundle.js');
  fs.writeFileSync(bundle, '// bundle\n');
  return buildInstallDir({
    root,
    launcherBundle: bundle,
    node: '/usr/local/bin/node',
    qwenCli: '/opt/qwen/cli.js',
    profiles: ['on-demand', 'auto-recall'],
    environment: { inherit: ['TERM', 'LANG', 'NODE_OPTIONS'], set: { NO_PROXY: 'localhost' } },
    credentials: { CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' }, OPENAI_API_KEY: { inherit: true } },
    providerCredentials: ['CONTEXT_API_TOKEN'],
    ...options,
  });
}

async function runPlan(args: string[], env: Record<string, string> = CALLER) {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  const io: CliIO = { env, cwd: base, stdin: new PassThrough(), stdout, stderr: new PassThrough() };
  const code = await command.run(args, io);
  return { code, out: Buffer.concat(chunks).toString('utf8') };
}

describe('qwen-managed plan', () => {
  it('--json reports executable, argv, cwd and every variable with its source', async () => {
    const f = fixture();
    const { code, out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand', '--json']);
    const p = (file: string) => f.profileFile('on-demand', file);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      profile: 'on-demand',
      agent: 'qwen',
      platform: 'posix',
      state: 'active',
      externalContext: true,
      executable: '/usr/local/bin/node',
      argv: [
        '/usr/local/bin/node',
        '/opt/qwen/cli.js',
        '--extensions',
        'none',
        '--mcp-config',
        p('mcp.json'),
      ],
      cwd: f.cwd,
      environment: [
        { name: 'PATH', value: '/usr/local/bin:/usr/bin:/bin', source: 'plan-path' },
        { name: 'TERM', value: 'xterm-256color', source: 'inherited' },
        { name: 'NO_PROXY', value: 'localhost', source: 'admin-set' },
        {
          name: 'CONTEXT_API_TOKEN',
          value: REDACTED,
          source: 'credential',
          redacted: true,
          from: 'file /etc/qm/context.token',
        },
        {
          name: 'OPENAI_API_KEY',
          value: REDACTED,
          source: 'credential',
          redacted: true,
          from: 'inherited from the caller',
        },
        ...FORCED_ENTRIES,
        { name: 'HOME', value: HOME, source: 'passwd-home' },
        { name: 'QWEN_CODE_SYSTEM_SETTINGS_PATH', value: p('system-settings.json'), source: 'pinned-file' },
        {
          name: 'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
          value: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/system-defaults.json`,
          source: 'launch-defaults',
        },
        { name: 'QWEN_CODE_TRUSTED_FOLDERS_PATH', value: p('trusted-folders.json'), source: 'pinned-file' },
        {
          name: 'QWEN_HOME',
          value: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/home`,
          source: 'qwen-home',
        },
        {
          name: 'QWEN_RUNTIME_DIR',
          value: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/home`,
          source: 'qwen-home',
        },
        {
          name: 'QWEN_EXTERNAL_CONTEXT_CONFIG',
          value: p('external-context.json'),
          source: 'provider-config',
        },
      ],
      inherited: [
        { name: 'TERM', present: true, passed: true },
        { name: 'LANG', present: false, passed: false },
        { name: 'NODE_OPTIONS', present: true, passed: false },
      ],
      dropped: [
        {
          name: 'NODE_OPTIONS',
          from: 'inherit',
          reason: 'injects --require/--import code into every Node process (Qwen, hooks, MCP server)',
        },
      ],
      missingCredentials: [],
      // The launcher's repository check as it would run now: an empty repository, nothing in the home.
      repository: { trust: 'trusted', envFiles: [], excluded: [], refused: [] },
    });
    expect(out).not.toContain(SECRET);
  });

  it('is the launcher computation: with real values it equals buildEnv', async () => {
    const f = fixture();
    const report = await planReport(f.installDir, 'on-demand', CALLER, deps);
    const plan = f.plans['on-demand']!;
    const env = buildEnv(CALLER, plan, ENVIRONMENT_POLICY, {
      home: HOME,
      qwenHome: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/home`,
      launchDefaults: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/system-defaults.json`,
      credentials: { CONTEXT_API_TOKEN: 'tok', OPENAI_API_KEY: SECRET },
      platform: 'posix',
      externalContextActive: true,
    });
    const values: Record<string, string> = { CONTEXT_API_TOKEN: 'tok', OPENAI_API_KEY: SECRET };
    expect(
      Object.fromEntries(report.environment.map((e) => [e.name, e.redacted ? values[e.name] : e.value])),
    ).toEqual({ ...env });
  });

  it('text output lists every variable, the inherited names absent now and what is dropped', async () => {
    const f = fixture();
    const { code, out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand']);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      'Profile:     on-demand (active)',
      'Executable:  /usr/local/bin/node',
      `Argv:        '/usr/local/bin/node' '/opt/qwen/cli.js' '--extensions' 'none' '--mcp-config' '${f.profileFile('on-demand', 'mcp.json')}'`,
      `Cwd:         ${f.cwd}`,
      '',
      'Environment (24 variables; nothing else is passed):',
    ]);
    expect(lines.filter((l) => /^ {2}\S+=/.test(l))).toHaveLength(24);
    expect(out).toMatch(/\n {2}TERM=xterm-256color +inherited \(present now\)\n/);
    expect(out).toMatch(/\n {2}OPENAI_API_KEY=<redacted> +credential inherited from the caller\n/);
    expect(out).toMatch(
      /\n {2}CONTEXT_API_TOKEN=<redacted> +credential from file \/etc\/qm\/context.token\n/,
    );
    expect(out).toContain('\nInherited when present, absent now: LANG\n');
    expect(out).toContain('\nDropped whatever the plan says:\n  NODE_OPTIONS (from inherit): injects');
    expect(out).not.toContain(SECRET);
  });

  it("shows the launcher's repository check as it would run now: what is kept out, what would refuse", async () => {
    const f = fixture();
    fs.writeFileSync(path.join(f.cwd, '.env'), 'DATABASE_URL=postgres://x\nSHELLOPTS=xtrace\n');
    fs.mkdirSync(path.join(f.cwd, '.qwen'));
    fs.writeFileSync(path.join(f.cwd, '.qwen', 'settings.json'), '{"hooks":{"SessionStart":[]}}');
    const { code, out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand']);
    expect(code).toBe(0);
    const section = out.slice(out.indexOf('Repository (trusted)')).split('\n').slice(0, 6);
    expect(section).toEqual([
      'Repository (trusted), as it is now for you:',
      `  .env files Qwen would load: ${f.cwd}/.env (project)`,
      "  kept out of Qwen's environment: DATABASE_URL, SHELLOPTS",
      '  the launcher would refuse to start:',
      `    ${f.cwd}/.qwen/settings.json: hooks.SessionStart: Qwen adds it to the managed settings (concat); the system settings cannot take it away; fix: remove hooks.SessionStart from the file (Qwen merges a trusted repository's settings into the managed ones)`,
      '',
    ]);
  });

  it.each<[string, string[]]>([
    // 0.24.4 has the setting: in a trusted repository it would change the session, so it refuses.
    [
      '0.24.4',
      [
        '  the launcher would refuse to start:',
        expect.stringContaining(
          '/.qwen/settings.json: tools.workflowNameOnly: it can change the managed session',
        ),
      ],
    ],
    // 0.24.0 does not know it and ignores it: nothing to refuse.
    ['0.24.0', []],
  ])(
    'judges the repository by the pinned Qwen package (%s), as the launcher does',
    async (version, expected) => {
      const root = path.join(base, `qwen-${counter++}`);
      const pkg = await writeQwenPackage(root, version);
      const f = fixture({ qwenCli: path.join(pkg, 'cli.js') });
      fs.mkdirSync(path.join(f.cwd, '.qwen'));
      // In the current format: a file Qwen would migrate refuses every key it does not know.
      fs.writeFileSync(
        path.join(f.cwd, '.qwen', 'settings.json'),
        '{"$version":4,"tools":{"workflowNameOnly":true}}',
      );
      const { code, out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand']);
      expect(code).toBe(0);
      const section = out.slice(out.indexOf('Repository (trusted)')).split('\n\n')[0]!.split('\n');
      // The section is there (an empty filter below would otherwise pass on any output).
      expect(section[0]).toBe('Repository (trusted), as it is now for you:');
      expect(
        section.filter((line) => line.includes('refuse') || line.includes('.qwen/settings.json')),
      ).toEqual(expected);
    },
  );

  it('shows a rolled-back profile without external context and with the launcher notice', async () => {
    const f = fixture({ states: { 'on-demand': 'rolled-back' } });
    const { out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand', '--json']);
    const report = JSON.parse(out);
    expect([report.state, report.externalContext, report.notice, report.argv.slice(1)]).toEqual([
      'rolled-back',
      false,
      'launch-qwen: profile "on-demand" is rolled back; starting Qwen without external context.',
      ['/opt/qwen/cli.js', '--extensions', 'none'],
    ]);
    const names = report.environment.map((e: { name: string }) => e.name);
    expect(names).not.toContain('QWEN_EXTERNAL_CONTEXT_CONFIG');
    expect(names).not.toContain('CONTEXT_API_TOKEN');
    expect(names).toContain('OPENAI_API_KEY');
  });

  it('never prints a secret-looking value that is merely inherited', async () => {
    const f = fixture({ environment: { inherit: ['TERM', 'GITHUB_TOKEN'], set: {} }, credentials: {} });
    const { out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand', '--json'], {
      TERM: 'xterm',
      GITHUB_TOKEN: SECRET,
    });
    expect(out).not.toContain(SECRET);
    const report = JSON.parse(out);
    expect(
      report.environment.filter((e: { name: string }) => ['TERM', 'GITHUB_TOKEN'].includes(e.name)),
    ).toEqual([
      { name: 'TERM', value: 'xterm', source: 'inherited' },
      { name: 'GITHUB_TOKEN', value: '<redacted>', source: 'inherited', redacted: true },
    ]);
  });

  it('never prints the user:password part of a URL, inherited or set, whatever the name', async () => {
    const f = fixture({
      environment: {
        inherit: ['TERM', 'HTTPS_PROXY', 'DATABASE_URL'],
        set: { HTTP_PROXY: `http://svc:${SECRET}@proxy.example.com:3128`, NO_PROXY: 'localhost' },
      },
      credentials: {},
    });
    const caller = {
      TERM: 'xterm',
      HTTPS_PROXY: `http://alice:${SECRET}@proxy.example.com:3128`,
      DATABASE_URL: `postgres://app:${SECRET}@db.example.com/app`,
    };
    const json = await runPlan(['--dir', f.installDir, '--profile', 'on-demand', '--json'], caller);
    const text = await runPlan(['--dir', f.installDir, '--profile', 'on-demand'], caller);
    expect(json.out + text.out).not.toContain(SECRET);
    expect(
      JSON.parse(json.out).environment.filter((e: { source: string }) =>
        ['inherited', 'admin-set'].includes(e.source),
      ),
    ).toEqual([
      { name: 'TERM', value: 'xterm', source: 'inherited' },
      {
        name: 'HTTPS_PROXY',
        value: 'http://<redacted>@proxy.example.com:3128',
        source: 'inherited',
        redacted: true,
      },
      {
        name: 'DATABASE_URL',
        value: 'postgres://<redacted>@db.example.com/app',
        source: 'inherited',
        redacted: true,
      },
      {
        name: 'HTTP_PROXY',
        value: 'http://<redacted>@proxy.example.com:3128',
        source: 'admin-set',
        redacted: true,
      },
      { name: 'NO_PROXY', value: 'localhost', source: 'admin-set' },
    ]);
  });

  it('shows the CA file the plan pins as NODE_EXTRA_CA_CERTS, and never the one of the caller', async () => {
    const f = fixture({
      editPlan: (p) => {
        p.environment.files['NODE_EXTRA_CA_CERTS'] = '/etc/qm/ca.pem';
        p.environment.inherit.push('NODE_EXTRA_CA_CERTS');
        return p;
      },
    });
    const caller = { ...CALLER, NODE_EXTRA_CA_CERTS: '/home/dev/mitm.pem' };
    const report = JSON.parse(
      (await runPlan(['--dir', f.installDir, '--profile', 'on-demand', '--json'], caller)).out,
    );
    expect(report.environment.filter((e: { name: string }) => e.name === 'NODE_EXTRA_CA_CERTS')).toEqual([
      { name: 'NODE_EXTRA_CA_CERTS', value: '/etc/qm/ca.pem', source: 'pinned-file' },
    ]);
    expect(report.dropped).toContainEqual({
      name: 'NODE_EXTRA_CA_CERTS',
      from: 'inherit',
      reason: 'adds trusted certificate authorities: provider and model traffic could be intercepted',
    });
    const { out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand'], caller);
    expect(out).toMatch(/\n {2}NODE_EXTRA_CA_CERTS=\/etc\/qm\/ca\.pem +pinned admin file\n/);
    expect(out).not.toContain('/home/dev/mitm.pem');
  });

  it('names an inherited credential missing from the environment', async () => {
    const f = fixture();
    const { out } = await runPlan(['--dir', f.installDir, '--profile', 'on-demand'], { TERM: 'xterm' });
    expect(out).toContain(
      '\nCredentials taken from the caller and absent now (the launcher would refuse): OPENAI_API_KEY\n',
    );
  });

  it.each([
    [[], 'plan: --dir DIR is required'],
    [['--dir', '/x'], 'plan: --profile KIND is required'],
    [
      ['--dir', '/x', '--profile', 'bogus'],
      'plan: unknown profile kind "bogus" (kinds: on-demand, auto-recall, write, openclaw-recall)',
    ],
    [
      ['--dir', '/x', '--profile', 'write', '--yolo'],
      "plan: Unknown option '--yolo' (options: --dir, --profile, --json, --help)",
    ],
  ])('usage error for %j', async (args, message) => {
    await expect(runPlan(args)).rejects.toThrow(new UsageError(message));
  });

  it('refuses an install without that profile, or with a plan the launcher would refuse', async () => {
    const f = fixture({ profiles: ['auto-recall'] });
    await expect(runPlan(['--dir', f.installDir, '--profile', 'write'])).rejects.toThrow(
      new InputError(`plan: profile write is not deployed in ${f.installDir} (deployed: auto-recall)`),
    );
    const g = fixture({ editPlan: (p) => ({ ...p, argv: [...p.argv, '--yolo'] }) });
    await expect(runPlan(['--dir', g.installDir, '--profile', 'on-demand'])).rejects.toThrow(
      new InputError(
        'plan: launch plan for "on-demand": refused Qwen option "--yolo" (YOLO approves every tool); re-render the deployment',
      ),
    );
  });

  it('--help prints the usage', async () => {
    const { code, out } = await runPlan(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('Usage: qwen-managed plan --dir DIR --profile KIND [--json]');
  });
});
