import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  deploymentSha256,
  parseDeploymentText,
  parseDeploymentValue,
} from '../../../src/deploy/deployment/parse.js';
import {
  DeploymentInvalid,
  formatProblem,
  isSecretPath,
  type Problem,
} from '../../../src/deploy/deployment/problems.js';
import {
  allProfilesRaw,
  deploymentProblems,
  EXAMPLES,
  example,
  exampleText,
  REPO,
  render,
} from './fixtures.js';

async function problemsOf(mutate: (d: any) => void): Promise<Problem[]> {
  const raw = await allProfilesRaw();
  mutate(raw);
  try {
    parseDeploymentValue(raw);
  } catch (error) {
    if (error instanceof DeploymentInvalid) return [...error.problems];
    throw error;
  }
  return [];
}

describe('deployment.json: the examples', () => {
  it.each(EXAMPLES)('examples/deployments/%s.json is valid', async (name) => {
    const parsed = await example(name);
    expect(Object.keys(parsed.deployment.profiles).length).toBeGreaterThan(0);
    expect(parsed.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('applies the defaults: approval guard on for yolo and auto, timeouts, empty credentials/inherit/set', () => {
    const parsed = parseDeploymentValue({
      version: 1,
      platform: 'posix',
      installDir: '/opt/qm',
      node: '/usr/bin/node',
      qwenCli: '/opt/qwen/cli.js',
      repositoryRoot: '/srv/app',
      environment: { PATH: '/usr/bin' },
      credentials: { T: { inherit: true } },
      profiles: {
        'on-demand': {
          provider: { type: 'generic-http-search-v1', baseUrl: 'https://c.example', tokenEnv: 'T' },
        },
      },
    });
    expect(parsed.deployment.approvalGuard).toEqual({ modes: ['yolo', 'auto'] });
    expect(parsed.deployment.profiles['on-demand']?.timeoutMs).toBe(5000);
    expect(parsed.deployment.profiles['on-demand']?.repositoryTrust).toBe('trusted');
    expect(parsed.deployment.environment).toEqual({ PATH: '/usr/bin', inherit: [], set: {}, fromFiles: [] });
  });

  it('validates against the published JSON Schema (schema/deployment.schema.json)', async () => {
    const schema = JSON.parse(await fs.readFile(path.join(REPO, 'schema', 'deployment.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (const name of EXAMPLES) expect(validate(JSON.parse(await exampleText(name))), name).toBe(true);
    expect(validate({ version: 1, platform: 'mac' })).toBe(false);
  });
});

describe('deploymentSha256: canonical JSON', () => {
  it('ignores formatting, key order and $schema, but not values', async () => {
    const raw = JSON.parse(await exampleText('auto-recall'));
    const reordered = Object.fromEntries(Object.entries(raw).reverse());
    delete reordered.$schema;
    expect(deploymentSha256(reordered)).toBe(deploymentSha256(raw));
    expect(parseDeploymentText(JSON.stringify(raw)).sha256).toBe(
      parseDeploymentText(JSON.stringify(raw, null, 8)).sha256,
    );
    expect(deploymentSha256({ ...raw, node: '/usr/bin/node' })).not.toBe(deploymentSha256(raw));
  });
});

// Each row: a single mutation of a good deployment → the key named, and words of the message and the fix.
const REFUSALS: [string, (d: any) => void, string, string, string][] = [
  [
    'developers naming nobody',
    (d) => (d.developers = { users: [] }),
    'developers',
    'names no user and no group',
    'list at least one account',
  ],
  [
    'a developer account name with a space',
    (d) => (d.developers = { users: ['alice smith'] }),
    'developers.users[0]',
    'is not a posix account name',
    '`id -un`',
  ],
  [
    'a developers group listed twice',
    (d) => (d.developers = { groups: ['qwen-dev', 'qwen-dev'] }),
    'developers.groups[1]',
    'is listed twice',
    'keep one entry',
  ],
  [
    'an unknown key in developers',
    (d) => (d.developers = { user: ['alice'] }),
    'developers.user',
    'is not a key in developers',
    'did you mean "users"?',
  ],
  [
    'relative installDir',
    (d) => (d.installDir = 'opt/qm'),
    'installDir',
    'not an absolute posix path',
    'absolute path',
  ],
  ['$ in node', (d) => (d.node = '/opt/$HOME/node'), 'node', 'contains `$`', 'without `$`'],
  [
    'newline in qwenCli',
    (d) => (d.qwenCli = '/opt/q\nwen/cli.js'),
    'qwenCli',
    'control character',
    'printable',
  ],
  [
    'NUL in repositoryRoot',
    (d) => (d.repositoryRoot = '/srv/\u0000app'),
    'repositoryRoot',
    'control character',
    'printable',
  ],
  [
    'installDir not normalised',
    (d) => (d.installDir = '/opt/../opt/qm/'),
    'installDir',
    'not in normal form',
    '"/opt/qm"',
  ],
  [
    'repositoryRoot is /',
    (d) => (d.repositoryRoot = '/'),
    'repositoryRoot',
    'filesystem root',
    'dedicated directory',
  ],
  ['cli-entry.js', (d) => (d.qwenCli = '/opt/qwen/cli-entry.js'), 'qwenCli', 'relaunches itself', 'cli.js'],
  [
    'relative PATH entry',
    (d) => (d.environment.PATH = '/usr/bin:bin'),
    'environment.PATH',
    '"bin" is not an absolute',
    'absolute path',
  ],
  [
    'empty PATH entry',
    (d) => (d.environment.PATH = '/usr/bin::/bin'),
    'environment.PATH',
    'current directory',
    'remove the empty',
  ],
  [
    'NODE_OPTIONS inherited',
    (d) => d.environment.inherit.push('NODE_OPTIONS'),
    'environment.inherit[2]',
    'injects --require/--import',
    'remove NODE_OPTIONS',
  ],
  [
    'LD_PRELOAD inherited',
    (d) => d.environment.inherit.push('LD_PRELOAD'),
    'environment.inherit[2]',
    'shared libraries',
    'remove LD_PRELOAD',
  ],
  [
    'OPENSSL_CONF inherited',
    (d) => d.environment.inherit.push('OPENSSL_CONF'),
    'environment.inherit[2]',
    'engine library',
    'remove OPENSSL_CONF',
  ],
  [
    'QWEN_CODE_LANG inherited (Qwen imports locales/<value>.js as code)',
    (d) => d.environment.inherit.push('QWEN_CODE_LANG'),
    'environment.inherit[2]',
    'runs any .js file inside Qwen',
    'remove QWEN_CODE_LANG',
  ],
  [
    'QWEN_SANDBOX inherited (Qwen relaunches in a container without the managed settings)',
    (d) => d.environment.inherit.push('QWEN_SANDBOX'),
    'environment.inherit[2]',
    'without QWEN_CODE_SYSTEM_SETTINGS_PATH',
    'remove QWEN_SANDBOX',
  ],
  [
    'npm config inherited',
    (d) => d.environment.inherit.push('NPM_CONFIG_NODE_OPTIONS'),
    'environment.inherit[2]',
    'either case',
    'remove',
  ],
  [
    'QWEN_CODE_SAFE_MODE set',
    (d) => (d.environment.set.QWEN_CODE_SAFE_MODE = '1'),
    'environment.set.QWEN_CODE_SAFE_MODE',
    'drops hooks',
    'remove',
  ],
  ['HOME set', (d) => (d.environment.set.HOME = '/tmp'), 'environment.set.HOME', 'passwd', 'remove HOME'],
  [
    'inherited twice',
    (d) => d.environment.inherit.push('TERM'),
    'environment.inherit[2]',
    'listed twice',
    'keep one',
  ],
  [
    'set and inherited',
    (d) => (d.environment.set.LANG = 'C'),
    'environment.set.LANG',
    'also inherited',
    'remove LANG',
  ],
  [
    'credential unused',
    (d) => (d.credentials.EXTRA_KEY = { inherit: true }),
    'credentials.EXTRA_KEY',
    'named by no deployed provider',
    '"profiles"',
  ],
  [
    'provider credential not routed',
    (d) => delete d.credentials.MEM0_API_KEY,
    'profiles.write.provider',
    'MEM0_API_KEY',
    '"credentials"',
  ],
  [
    'credential profiles omit its provider',
    (d) => (d.credentials.MEM0_API_KEY.profiles = ['on-demand']),
    'credentials.MEM0_API_KEY.profiles',
    'leaves out "write"',
    'add "write"',
  ],
  [
    'credential also inherited',
    (d) => d.environment.inherit.push('OPENAI_API_KEY'),
    'credentials.OPENAI_API_KEY',
    'also listed under "environment"',
    'remove OPENAI_API_KEY',
  ],
  [
    'credential file relative',
    (d) => (d.credentials.CONTEXT_API_TOKEN.file = 'context.token'),
    'credentials.CONTEXT_API_TOKEN.file',
    'not an absolute',
    'absolute path',
  ],
  [
    'write profile with a search-only provider',
    (d) => (d.profiles.write = d.profiles['on-demand']),
    'profiles.write.provider.type',
    'cannot store memories',
    'mem0',
  ],
  [
    'v1 timeout reaching the MCP timeout',
    (d) => (d.profiles['on-demand'].timeoutMs = 8000),
    'profiles.on-demand.timeoutMs',
    '<=7999',
    'before the 8000 ms MCP call timeout',
  ],
  [
    'auto-recall timeout above 5000',
    (d) => (d.profiles['auto-recall'].timeoutMs = 6000),
    'profiles.auto-recall.timeoutMs',
    '<=5000',
    'at most 5000',
  ],
  [
    'baseUrl with a path',
    (d) => (d.profiles['on-demand'].provider.baseUrl = 'https://c.example.com/v1'),
    'profiles.on-demand.provider.baseUrl',
    'not valid',
    'origin only',
  ],
  [
    'Mem0 scope missing its required key',
    (d) =>
      (d.profiles.write.provider = {
        type: 'mem0',
        preset: 'mem0-oss-rest-2026-08',
        endpoint: { origin: 'https://m.example.com' },
        credentialEnv: 'MEM0_API_KEY',
        scope: { agentId: 'a' },
      }),
    'profiles.write.provider.scope',
    'does not match preset "mem0-oss-rest-2026-08" (requires userId; optional agentId): missing userId',
    'write "scope": {"userId":"<userId>","agentId":"a"}',
  ],
  ['settings.hooks', (d) => (d.settings.hooks = {}), 'settings.hooks', 'managed by render', 'remove "hooks"'],
  [
    'settings.disableAllHooks',
    (d) => (d.settings.disableAllHooks = true),
    'settings.disableAllHooks',
    'managed by render',
    'remove',
  ],
  [
    'settings.mcp',
    (d) => (d.settings.mcp = { allowed: ['x'] }),
    'settings.mcp',
    'managed by render',
    'remove "mcp"',
  ],
  [
    'settings.permissions.allow',
    (d) => (d.settings.permissions = { allow: ['ShellTool'] }),
    'settings.permissions.allow',
    'managed by render',
    'remove',
  ],
  [
    'settings changes approvalMode',
    (d) => (d.settings.tools = { approvalMode: 'yolo' }),
    'settings.tools.approvalMode',
    'baseline value "default"',
    'set it to "default"',
  ],
  [
    'settings replaces a baseline object',
    (d) => (d.settings.telemetry = false),
    'settings.telemetry',
    'replace a managed baseline object',
    'remove',
  ],
  [
    'settings.env with NODE_OPTIONS',
    (d) => (d.settings.env = { NODE_OPTIONS: '--require x' }),
    'settings.env.NODE_OPTIONS',
    'environment policy',
    'remove',
  ],
  [
    'settings denies the managed tool',
    (d) => (d.settings.permissions = { deny: ['mcp__external-context__context_search'] }),
    'settings.permissions.deny',
    'denies a managed',
    'remove',
  ],
  [
    'approval guard mode twice',
    (d) => (d.approvalGuard = { modes: ['yolo', 'yolo'] }),
    'approvalGuard.modes[1]',
    'listed twice',
    'keep one',
  ],
  [
    'approval guard unknown mode',
    (d) => (d.approvalGuard = { modes: ['plan'] }),
    'approvalGuard.modes[0]',
    'expected one of',
    '"auto"',
  ],
  [
    'unknown top-level key',
    (d) => (d.hooks = {}),
    'hooks',
    'is not a key at the top level',
    'remove "hooks"',
  ],
  [
    'a misspelt top-level key: did you mean',
    (d) => {
      d.instalDir = d.installDir;
      delete d.installDir;
    },
    'instalDir',
    'is not a key at the top level',
    'did you mean "installDir"? Rename "instalDir" to "installDir"',
  ],
  [
    'a misspelt profile name: did you mean',
    (d) => {
      d.profiles.autorecall = d.profiles['auto-recall'];
      delete d.profiles['auto-recall'];
    },
    'profiles.autorecall',
    'is not a key in profiles',
    'did you mean "auto-recall"?',
  ],
  [
    "a misspelt provider field: did you mean, among that type's fields",
    (d) => {
      d.profiles['on-demand'].provider.tokenenv = 'CONTEXT_API_TOKEN';
      delete d.profiles['on-demand'].provider.tokenEnv;
    },
    'profiles.on-demand.provider.tokenenv',
    'is not a key in profiles.on-demand.provider',
    'did you mean "tokenEnv"?',
  ],
  [
    'a misspelt enum value: did you mean',
    (d) => (d.approvalGuard = { modes: ['yoloo'] }),
    'approvalGuard.modes[0]',
    'expected one of',
    'did you mean "yolo"?',
  ],
  [
    'fromFiles allowing a forbidden name',
    (d) => (d.environment.fromFiles = ['APP_MODE', 'LD_LIBRARY_PATH']),
    'environment.fromFiles[1]',
    'shared libraries',
    'remove LD_LIBRARY_PATH',
  ],
  [
    'fromFiles allowing a name the launcher pins',
    (d) => (d.environment.fromFiles = ['SHELLOPTS']),
    'environment.fromFiles[0]',
    'bash',
    'remove SHELLOPTS',
  ],
  [
    'fromFiles pattern overlapping forbidden names',
    (d) => (d.environment.fromFiles = ['NODE_*']),
    'environment.fromFiles[0]',
    'matches names the environment policy forbids (NODE_OPTIONS, NODE_PATH',
    'one by one',
  ],
  [
    'fromFiles "*"',
    (d) => (d.environment.fromFiles = ['*']),
    'environment.fromFiles[0]',
    'not a name or a PREFIX*',
    'APP_*',
  ],
  [
    'fromFiles twice',
    (d) => (d.environment.fromFiles = ['A', 'A']),
    'environment.fromFiles[1]',
    'listed twice',
    'keep one',
  ],
  [
    'an untrusted repository for on-demand',
    (d) => (d.profiles['on-demand'].repositoryTrust = 'untrusted'),
    'profiles.on-demand.repositoryTrust',
    'no MCP server in an untrusted folder',
    'auto-recall',
  ],
  [
    'an untrusted repository for write',
    (d) => (d.profiles.write.repositoryTrust = 'untrusted'),
    'profiles.write.repositoryTrust',
    'leaves the profile without its tools',
    '"trusted"',
  ],
  ['no profiles', (d) => (d.profiles = {}), 'profiles', 'at least one profile', 'add at least one'],
  ['unknown platform', (d) => (d.platform = 'mac'), 'platform', 'expected one of', '"posix", "windows"'],
  [
    'Windows path with a non-ASCII character',
    (d) =>
      Object.assign(d, {
        platform: 'windows',
        installDir: 'C:\\qm',
        node: 'C:\\nöde\\node.exe',
        qwenCli: 'C:\\q\\cli.js',
        repositoryRoot: 'C:\\repo',
        environment: { PATH: 'C:\\Windows' },
        credentials: { CONTEXT_API_TOKEN: { inherit: true }, MEM0_API_KEY: { inherit: true } },
      }),
    'node',
    'non-ASCII',
    'ASCII',
  ],
];

describe('deployment.json: developers (who the deployment is for)', () => {
  it('is optional; users and groups default to [] and reach every launch.json sorted', async () => {
    const raw = await allProfilesRaw();
    expect(await problemsOf((d) => (d.developers = { groups: ['qwen-dev'] }))).toEqual([]);
    raw.developers = { users: ['bob', 'alice'] };
    const parsed = parseDeploymentValue(raw);
    expect(parsed.deployment.developers).toEqual({ users: ['bob', 'alice'], groups: [] });
    for (const [rel, file] of render(parsed).files) {
      if (!rel.endsWith('/launch.json')) continue;
      expect(JSON.parse(new TextDecoder().decode(file.bytes)).developers, rel).toEqual({
        users: ['alice', 'bob'],
        groups: [],
      });
    }
    delete raw.developers;
    for (const [rel, file] of render(parseDeploymentValue(raw)).files) {
      if (rel.endsWith('/launch.json'))
        expect(Object.hasOwn(JSON.parse(new TextDecoder().decode(file.bytes)), 'developers'), rel).toBe(
          false,
        );
    }
  });
});

describe('deployment.json: the repository trust decision', () => {
  it('auto-recall may run with an untrusted repository (Qwen then reads none of its files)', async () => {
    expect(await problemsOf((d) => (d.profiles['auto-recall'].repositoryTrust = 'untrusted'))).toEqual([]);
  });
  it('fromFiles takes names and PREFIX* patterns that cannot reach a forbidden name', async () => {
    expect(await problemsOf((d) => (d.environment.fromFiles = ['DATABASE_URL', 'APP_*', 'MYAPP*']))).toEqual(
      [],
    );
  });
});

describe('deployment.json: refusals name the key, the bad value and the fix', () => {
  it.each(REFUSALS)('%s', async (_name, mutate, key, message, fix) => {
    const problems = await problemsOf(mutate);
    const hit = problems.find((p) => p.key === key);
    expect(hit, JSON.stringify(problems, null, 2)).toBeDefined();
    expect(hit!.message).toContain(message);
    expect(hit!.fix).toContain(fix);
    expect(formatProblem(hit!)).toContain(`${key}`);
  });

  it('shows the bad value in the problem', async () => {
    const [p] = await problemsOf((d) => (d.node = '/opt/$X/node'));
    expect(p).toMatchObject({ key: 'node', value: '"/opt/$X/node"' });
    expect(formatProblem(p!)).toBe(
      'node = "/opt/$X/node": contains `$`, which Qwen would substitute from the environment inside settings strings. Fix: move the file to a path without `$` (quoting cannot protect it)',
    );
  });

  it('reports every problem at once, also when the schema refused part of the file', async () => {
    // The issue 28 row: an installDir with `..` and an invalid approval-guard mode, in one run.
    const problems = await problemsOf((d) => {
      d.installDir = '/opt/../qm';
      d.approvalGuard = { modes: ['yoloo'] };
      d.profiles['on-demand'].provider.baseUrl = 'ftp://context.example.com';
      d.environment.inherit.push('NODE_OPTIONS');
    });
    expect(problems.map((p) => p.key)).toEqual([
      'approvalGuard.modes[0]',
      'profiles.on-demand.provider.baseUrl',
      'installDir',
      'environment.inherit[2]',
    ]);
  });

  it('reports every problem at once', async () => {
    const problems = await problemsOf((d) => {
      d.node = 'node';
      d.environment.inherit.push('NODE_OPTIONS');
    });
    expect(problems.map((p) => p.key)).toEqual(['node', 'environment.inherit[2]']);
  });

  it('accepts baseline repeats and additions to the union lists', async () => {
    const problems = await problemsOf((d) => {
      d.settings.$version = 4;
      d.settings.general = { chatRecording: false, vimMode: true };
      d.settings.slashCommands = { disabled: ['mcp', 'memory'] };
      d.settings.permissions = { deny: ['ShellTool'] };
    });
    expect(problems).toEqual([]);
  });

  it('drops a __proto__ key of the settings block: it never reaches a prototype or the rendered settings', async () => {
    const raw = await allProfilesRaw();
    raw.settings = JSON.parse('{"__proto__": {"disableAllHooks": true}, "model": {"name": "m"}}');
    const parsed = parseDeploymentValue(raw);
    expect(Object.keys(parsed.deployment.settings ?? {})).toEqual(['model']);
    expect(({} as Record<string, unknown>).disableAllHooks).toBeUndefined();
    for (const [rel, file] of render(parsed).files) {
      if (!rel.endsWith('/system-settings.json')) continue;
      const settings = JSON.parse(new TextDecoder().decode(file.bytes));
      expect(Object.hasOwn(settings, '__proto__'), rel).toBe(false);
      expect(settings.disableAllHooks, rel).toBe(false);
    }
  });

  it('refuses invalid JSON with line and column', () => {
    expect(() => parseDeploymentText('{\n  "version": 1,\n  oops\n}')).toThrow(/line 3, column 3/);
  });
});

// Negative control (by hand): a credential file under installDir rendered fine; verify then called it
// "not listed in manifest.json; re-render", and that re-render moved it to backups/, so every launch
// failed with "does not exist".
// Negative control (by hand): every relative pin was told "such as /opt/qwen-managed", a directory,
// also for node, a credential file or openclaw.mjs.
describe('deployment.json: a relative pin is told an absolute path of its own kind', () => {
  it.each<[string, (d: any) => void, string]>([
    [
      'node',
      (d) => (d.node = 'node-22/bin/node'),
      'node = "node-22/bin/node": is not an absolute posix path. Fix: write an absolute path such as /opt/node-22/bin/node',
    ],
    [
      'a credential file',
      (d) => (d.credentials.CONTEXT_API_TOKEN.file = 'context.token'),
      'credentials.CONTEXT_API_TOKEN.file = "context.token": is not an absolute posix path. Fix: write an absolute path such as /etc/qwen-managed/context.token',
    ],
    [
      'installDir',
      (d) => (d.installDir = 'install'),
      'installDir = "install": is not an absolute posix path. Fix: write an absolute path such as /opt/qwen-managed',
    ],
  ])('%s', async (_title, edit, message) => {
    const problems = (await problemsOf(edit)).map(formatProblem);
    expect(problems).toContain(message);
  });
});

// Negative control (by hand): a misspelt profile key ("auto-recal") also got "credentials.
// OPENAI_API_KEY.profiles = "auto-recall" … Fix: remove "auto-recall"", which would unroute the key.
describe('deployment.json: a credential routed to a profile not deployed', () => {
  it('names the entry and both fixes: remove it, or deploy the profile', async () => {
    const problems = (
      await problemsOf((d) => {
        d.profiles['auto-recal'] = d.profiles['auto-recall'];
        delete d.profiles['auto-recall'];
      })
    ).map(formatProblem);
    expect(problems).toContain(
      'credentials.OPENAI_API_KEY.profiles[1] = "auto-recall": names a profile this deployment does not deploy. Fix: remove "auto-recall" here, or deploy it under "profiles" (deployed: "on-demand", "write")',
    );
  });
});

describe('deployment.json: a pin inside installDir, which render owns, is refused', () => {
  it.each<[string, (d: any) => void, string]>([
    [
      'a credential file',
      (d) => (d.credentials.CONTEXT_API_TOKEN.file = '/opt/qwen-managed/secrets/context.token'),
      'credentials.CONTEXT_API_TOKEN.file = "/opt/qwen-managed/secrets/context.token": is inside installDir "/opt/qwen-managed", which render owns: the next render would move it to backups/. Fix: keep the credential file outside the install tree, e.g. /etc/qwen-managed/context.token',
    ],
    [
      'node',
      (d) => (d.node = '/opt/qwen-managed/node/bin/node'),
      'node = "/opt/qwen-managed/node/bin/node": is inside installDir "/opt/qwen-managed", which render owns: the next render would move it to backups/. Fix: keep Node outside the install tree',
    ],
    [
      'the repository',
      (d) => (d.repositoryRoot = '/opt/qwen-managed/repo'),
      'repositoryRoot = "/opt/qwen-managed/repo": is inside installDir "/opt/qwen-managed", which render owns: the next render would move it to backups/. Fix: keep the repository outside the install tree',
    ],
  ])('%s', async (_title, edit, message) => {
    const problems = (await problemsOf(edit)).map(formatProblem);
    expect(problems).toEqual([message]);
  });
});

// The install tree is trusted and the repository is not: an installDir the repository holds is one
// whoever writes the repository (a developer, a checkout or pull of it) could rewrite, hooks included.
// Negative control (by hand): without installInRepositoryProblems both rows parsed with no problem,
// and render wrote an installDir under a root-owned checkout (which passes StrictModes) with exit 0.
describe('deployment.json: an installDir inside repositoryRoot is refused', () => {
  it.each<[string, () => Promise<any>, (d: any) => void, string]>([
    [
      'posix',
      allProfilesRaw,
      (d) => {
        d.repositoryRoot = '/srv/repos/app';
        d.installDir = '/srv/repos/app/.tools/qwen-managed';
      },
      'installDir = "/srv/repos/app/.tools/qwen-managed": is inside repositoryRoot "/srv/repos/app", the repository developers open: whoever writes there (a developer, a checkout or pull of it) could replace the hooks and the managed settings. Fix: render into a directory outside the repository that only root can write, e.g. /opt/qwen-managed',
    ],
    [
      'windows, in another case',
      async () => JSON.parse(await exampleText('windows')),
      (d) => (d.installDir = 'd:\\REPOS\\app\\qwen-managed'),
      'installDir = "d:\\\\REPOS\\\\app\\\\qwen-managed": is inside repositoryRoot "D:\\\\repos\\\\app", the repository developers open: whoever writes there (a developer, a checkout or pull of it) could replace the hooks and the managed settings. Fix: render into a directory outside the repository that only root can write, e.g. C:\\Program Files\\qwen-managed',
    ],
  ])('%s', async (_title, base, edit, message) => {
    const raw = await base();
    edit(raw);
    expect(deploymentProblems(raw)).toEqual([message]);
  });

  it('a sibling of the repository that shares its name as a prefix is not inside it', async () => {
    const problems = await problemsOf((d) => {
      d.repositoryRoot = '/srv/repos/app';
      d.installDir = '/srv/repos/app-tools/qwen-managed';
    });
    expect(problems).toEqual([]);
  });
});

describe('deployment.json: a variable named __proto__, constructor or prototype is refused, not dropped', () => {
  // Negative control (by hand): without prototypeKeyProblems, `credentials.__proto__` and
  // `environment.set.__proto__` parsed with no problem (exit 0) and the entry silently vanished.
  it.each([
    // Each entry routed to a profile, so this refusal is the only problem.
    ['credentials', '__proto__', '{"file": "/etc/qwen-managed/x.key", "profiles": ["on-demand"]}'],
    ['credentials', 'constructor', '{"file": "/etc/qwen-managed/x.key", "profiles": ["on-demand"]}'],
    ['credentials', 'prototype', '{"inherit": true, "profiles": ["on-demand"]}'],
    ['environment.set', '__proto__', '"1"'],
    ['environment.set', 'constructor', '"1"'],
    ['environment.set', 'prototype', '"1"'],
  ])('%s.%s', async (at, key, entry) => {
    const problems = await problemsOf((d) => {
      const record = at === 'credentials' ? d.credentials : d.environment.set;
      // An own property, as JSON.parse makes it (assignment would set the prototype instead).
      Object.defineProperty(record, key, { value: JSON.parse(entry), enumerable: true });
    });
    expect(problems.map(formatProblem)).toEqual([
      `${at}.${key}: is a reserved JavaScript name, not a variable name: the entry would silently vanish. Fix: remove "${key}" (variable names match ^[A-Za-z_][A-Za-z0-9_]*$ and are not "__proto__", "constructor" or "prototype")`,
    ]);
  });
});

describe('deployment.json: a refusal never prints a value that may be a secret', () => {
  // Negative control (by hand): with problem() calling showValue(value) unredacted, every row
  // printed its "sk-LEAK-…" value (e.g. `settings.security.auth.apikey = "sk-LEAK-typo-1234"`).
  it.each([
    [
      'a typo of apiKey under security.auth',
      (d: any) => (d.settings.security = { auth: { selectedType: 'openai', apikey: 'sk-LEAK-typo-1234' } }),
      'settings.security.auth.apikey = "<set>": is not a Qwen Code',
    ],
    [
      'a key of the wrong type under security.auth',
      (d: any) => (d.settings.security = { auth: { selectedType: 'openai', apiKey: ['sk-LEAK-arr'] } }),
      'settings.security.auth.apiKey = "<set>": ',
    ],
    [
      'a secret-named key in a misspelt object, shown whole',
      (d: any) => (d.settings.securty = { auth: { apiKey: 'sk-LEAK-nested' } }),
      'settings.securty = {"auth":{"apiKey":"<set>"}}: is not a Qwen Code',
    ],
    [
      'a value under settings.env',
      (d: any) => (d.settings.env = { NODE_EXTRA_CA_CERTS: 'sk-LEAK-env' }),
      'settings.env.NODE_EXTRA_CA_CERTS = "<set>": is forbidden',
    ],
    [
      'a secret pasted in place of a credential entry',
      (d: any) => (d.credentials.OPENAI_API_KEY = 'sk-LEAK-pasted'),
      'credentials.OPENAI_API_KEY = "<set>": ',
    ],
    [
      'a password-named key in a provider block',
      (d: any) => (d.profiles['on-demand'].provider.password = 'sk-LEAK-pw'),
      'profiles.on-demand.provider.password = "<set>": is not a key',
    ],
    [
      // Only the user:password@ part: the scheme and host stay, so the administrator sees what to fix.
      'a password in a provider URL',
      (d: any) =>
        (d.profiles['on-demand'].provider.baseUrl = 'https://alice:sk-LEAK-url@context.example.com'),
      'profiles.on-demand.provider.baseUrl = "https://<set>@context.example.com": is not valid',
    ],
    [
      'a password holding an unencoded @ in a provider URL',
      (d: any) =>
        (d.profiles['on-demand'].provider.baseUrl = 'https://alice:sk-LEAK@url@context.example.com/x'),
      'profiles.on-demand.provider.baseUrl = "https://<set>@context.example.com/x": is not valid',
    ],
  ])('%s', async (_name, mutate, shown) => {
    const lines = (await problemsOf(mutate)).map(formatProblem);
    expect(lines.join('\n')).not.toContain('sk-LEAK');
    expect(
      lines.some((line) => line.startsWith(shown)),
      lines.join('\n'),
    ).toBe(true);
  });

  it.each([
    [['settings', 'security', 'auth', 'apikey'], true],
    [['settings', 'security', 'auth', 'selectedType'], false],
    [['settings', 'env', 'HTTP_PROXY'], true],
    [['settings', 'tools', 'githubToken'], true],
    [['environment', 'set', 'DB_PASSWORD'], true],
    [['settings', 'model', 'name'], false],
    // Variable names and file references, not secrets: shown so the administrator can fix them.
    [['credentials', 'OPENAI_API_KEY'], false],
    [['credentials', 'OPENAI_API_KEY', 'file'], false],
    [['profiles', 'write', 'provider', 'apiKeyEnv'], false],
  ])('isSecretPath(%j) is %s', (keyPath, secret) => {
    expect(isSecretPath(keyPath)).toBe(secret);
  });
});

describe('deployment.json: tls.extraCaCertificates (a private CA, pinned as NODE_EXTRA_CA_CERTS)', () => {
  const windows = async () => JSON.parse(await exampleText('windows'));

  // [title, base deployment, tls block (undefined: key absent), every problem]
  it.each<[string, () => Promise<any>, unknown, string[]]>([
    ['absent', allProfilesRaw, undefined, []],
    ['an absolute posix path', allProfilesRaw, { extraCaCertificates: '/etc/qwen-managed/ca.pem' }, []],
    [
      'an absolute Windows path on the windows platform',
      windows,
      { extraCaCertificates: 'C:\\ProgramData\\qwen-managed\\ca.pem' },
      [],
    ],
    [
      'the path missing',
      allProfilesRaw,
      {},
      ['tls.extraCaCertificates: is required. Fix: add "extraCaCertificates" (string)'],
    ],
    [
      'a relative path',
      allProfilesRaw,
      { extraCaCertificates: 'ca.pem' },
      [
        'tls.extraCaCertificates = "ca.pem": is not an absolute posix path. Fix: write an absolute path such as /etc/qwen-managed/ca.pem',
      ],
    ],
    [
      'a posix path on the windows platform',
      windows,
      { extraCaCertificates: '/etc/qwen-managed/ca.pem' },
      [
        'tls.extraCaCertificates = "/etc/qwen-managed/ca.pem": is not an absolute windows path. Fix: write an absolute path such as C:\\ProgramData\\qwen-managed\\ca.pem',
      ],
    ],
    [
      'a `$` in the path',
      allProfilesRaw,
      { extraCaCertificates: '/etc/$CA/ca.pem' },
      [
        'tls.extraCaCertificates = "/etc/$CA/ca.pem": contains `$`, which Qwen would substitute from the environment inside settings strings. Fix: move the file to a path without `$` (quoting cannot protect it)',
      ],
    ],
    [
      'a newline in the path',
      allProfilesRaw,
      { extraCaCertificates: '/etc/ca\n.pem' },
      [
        'tls.extraCaCertificates = "/etc/ca\\n.pem": contains a newline, NUL or another control character. Fix: use a path made of printable characters only',
      ],
    ],
    [
      'a path not in normal form',
      allProfilesRaw,
      { extraCaCertificates: '/etc/../etc/ca.pem' },
      ['tls.extraCaCertificates = "/etc/../etc/ca.pem": is not in normal form. Fix: write "/etc/ca.pem"'],
    ],
    [
      'a path inside installDir',
      allProfilesRaw,
      { extraCaCertificates: '/opt/qwen-managed/ca.pem' },
      [
        'tls.extraCaCertificates = "/opt/qwen-managed/ca.pem": is inside installDir "/opt/qwen-managed", which render owns: the next render would move it to backups/. Fix: keep the CA file outside the install tree, e.g. /etc/qwen-managed/ca.pem',
      ],
    ],
    [
      'a Windows path inside installDir, in another case',
      windows,
      { extraCaCertificates: 'C:\\program files\\QWEN-MANAGED\\ca.pem' },
      [
        'tls.extraCaCertificates = "C:\\\\program files\\\\QWEN-MANAGED\\\\ca.pem": is inside installDir "C:\\\\Program Files\\\\qwen-managed", which render owns: the next render would move it to backups/. Fix: keep the CA file outside the install tree, e.g. C:\\ProgramData\\qwen-managed\\ca.pem',
      ],
    ],
    [
      'a sibling of installDir sharing its prefix',
      allProfilesRaw,
      { extraCaCertificates: '/opt/qwen-managed-ca/ca.pem' },
      [],
    ],
    [
      'an unknown key inside tls',
      allProfilesRaw,
      { extraCaCertificates: '/etc/ca.pem', rejectUnauthorized: false },
      [
        'tls.rejectUnauthorized = false: is not a key in tls. Fix: remove "rejectUnauthorized" (known here: "extraCaCertificates")',
      ],
    ],
    [
      'tls that is not an object',
      allProfilesRaw,
      '/etc/ca.pem',
      ['tls = "/etc/ca.pem": expected object, received string. Fix: use a object'],
    ],
  ])('%s', async (_title, base, tls, problems) => {
    const raw = await base();
    if (tls !== undefined) raw.tls = tls;
    expect(deploymentProblems(raw)).toEqual(problems);
    if (problems.length === 0) expect(parseDeploymentValue(raw).deployment.tls).toEqual(tls);
  });

  // The variable itself stays refused everywhere else: the fix points at the managed route.
  it.each<[string, (d: any) => void, string]>([
    [
      'environment.inherit',
      (d) => d.environment.inherit.push('NODE_EXTRA_CA_CERTS'),
      'environment.inherit[2] = "NODE_EXTRA_CA_CERTS"',
    ],
    [
      'environment.set',
      (d) => (d.environment.set.NODE_EXTRA_CA_CERTS = '/etc/ca.pem'),
      'environment.set.NODE_EXTRA_CA_CERTS = "NODE_EXTRA_CA_CERTS"',
    ],
    [
      'credentials',
      (d) => (d.credentials.NODE_EXTRA_CA_CERTS = { file: '/etc/ca.pem', profiles: ['write'] }),
      'credentials.NODE_EXTRA_CA_CERTS = "NODE_EXTRA_CA_CERTS"',
    ],
  ])('NODE_EXTRA_CA_CERTS in %s is refused, with tls as the fix', async (_where, mutate, head) => {
    const raw = await allProfilesRaw();
    mutate(raw);
    expect(deploymentProblems(raw)).toEqual([
      `${head}: is forbidden by the environment policy: adds trusted certificate authorities: provider and model traffic could be intercepted. Fix: remove NODE_EXTRA_CA_CERTS and set "tls": {"extraCaCertificates": "<absolute path of the PEM file>"}`,
    ]);
  });

  it('NODE_EXTRA_CA_CERTS in settings.env is refused, with tls as the fix', async () => {
    const raw = await allProfilesRaw();
    raw.settings = { ...(raw.settings as object), env: { NODE_EXTRA_CA_CERTS: '/etc/ca.pem' } };
    expect(deploymentProblems(raw)).toEqual([
      // Every settings.env value is shown redacted: the same key could hold OPENAI_API_KEY's value.
      'settings.env.NODE_EXTRA_CA_CERTS = "<set>": is forbidden by the environment policy (adds trusted certificate authorities: provider and model traffic could be intercepted). Fix: remove "NODE_EXTRA_CA_CERTS" and set "tls": {"extraCaCertificates": "<absolute path of the PEM file>"}',
    ]);
  });

  it('the published JSON Schema knows tls and refuses an unknown key in it', async () => {
    const schema = JSON.parse(await fs.readFile(path.join(REPO, 'schema', 'deployment.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const raw = await allProfilesRaw();
    expect(validate({ ...raw, tls: { extraCaCertificates: '/etc/ca.pem' } })).toBe(true);
    expect(validate({ ...raw, tls: { extraCaCertificates: '/etc/ca.pem', insecure: true } })).toBe(false);
    expect(validate({ ...raw, tls: {} })).toBe(false);
  });
});
