import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../../src/deploy/verify/report.js';
import {
  allProfiles,
  editJson,
  fakeRuntimes,
  REPO,
  rehash,
  renderToDir,
  tempDir,
  verifyInstall,
} from './fixtures.js';

let good: string;
let runtimeDir: string;
let deploymentFile: string;

beforeAll(async () => {
  good = await renderToDir(await allProfiles());
  // The toolkit's runtimes for the drift render: the same fakes the tree was rendered with.
  runtimeDir = path.join(await tempDir(), 'runtime');
  await fs.mkdir(runtimeDir);
  for (const [name, bytes] of fakeRuntimes()) await fs.writeFile(path.join(runtimeDir, name), bytes);
  deploymentFile = path.join(REPO, 'test', 'fixtures', 'deploy', 'all-profiles.json');
});

async function verify(
  dir: string,
  options: { deployment?: string; smoke?: boolean } = {},
): Promise<VerifyReport> {
  return verifyInstall(dir, {
    ...(options.deployment === undefined ? {} : { deploymentFile: options.deployment }),
    runtimeDir,
    smoke: options.smoke ?? false,
  });
}

const failures = (report: VerifyReport) =>
  report.checks
    .filter((c) => !c.ok && c.severity === 'error')
    .map((c) => `[${c.id}] ${c.file ?? ''}: ${c.message}`);

describe('verify on the untouched tree', () => {
  it('passes every check, with drift and smoke runs', async () => {
    const report = await verify(good, { deployment: deploymentFile, smoke: true });
    expect(failures(report)).toEqual([]);
    expect(report.ok).toBe(true);
    const ids = new Set(report.checks.map((c) => c.id));
    for (const id of [
      'manifest',
      'files.sha256',
      'files.unlisted',
      'layout.profile',
      'launch.schema',
      'policy.arguments',
      'policy.environment',
      'settings.baseline',
      'settings.hooks',
      'settings.exclusivity',
      'provider.config',
      'timeouts',
      'mcp.config',
      'drift',
      'smoke',
      'deployment',
    ]) {
      expect(ids, id).toContain(id);
    }
    expect(report.checks.filter((c) => c.id === 'smoke' && c.ok).length).toBe(6);
  });
});

type Mutation = (dir: string) => Promise<void>;
const settings = (kind: string) => (dir: string) => path.join(dir, 'profiles', kind, 'system-settings.json');
const launch = (kind: string) => (dir: string) => path.join(dir, 'profiles', kind, 'launch.json');
const file = (rel: string) => (dir: string) => path.join(dir, rel);
const json =
  (target: (dir: string) => string, edit: (v: any) => void): Mutation =>
  (dir) =>
    editJson(target(dir), edit);

// With `deployment`, verify also gets deployment.json (after `edit`, when given: drift from a changed file).
type Options = { deployment?: true | { edit: (raw: any) => void }; smoke?: boolean };

// [name, mutation, re-hash manifest.json afterwards, check id, message fragment, options]
const MUTATIONS: [string, Mutation, boolean, string, string, Options?][] = [
  [
    'the auto-recall hook removed',
    json(settings('auto-recall'), (s) => delete s.hooks.UserPromptSubmit),
    true,
    'settings.hooks',
    'the external-context-auto-recall hook is missing',
  ],
  [
    'the write confirmation hook removed',
    json(settings('write'), (s) => s.hooks.PreToolUse.shift()),
    true,
    'settings.hooks',
    'external-context-memory-write-confirmation hook is missing',
  ],
  [
    'an mcp.json added to auto-recall',
    async (dir) =>
      fs.copyFile(file('profiles/on-demand/mcp.json')(dir), file('profiles/auto-recall/mcp.json')(dir)),
    true,
    'layout.profile',
    'auto-recall profile has no external-context MCP server',
  ],
  [
    'a relative node path',
    json(launch('on-demand'), (p) => (p.node = 'bin/node')),
    true,
    'launch.paths',
    'node "bin/node" is not an absolute posix path',
  ],
  [
    'a $ in a path',
    json(launch('write'), (p) => (p.qwenCli = '/opt/$QWEN/cli.js')),
    true,
    'launch.paths',
    'contains `$`',
  ],
  [
    'a newline in a path',
    json(launch('write'), (p) => (p.cwd = '/srv/repos/app\nrm -rf /')),
    true,
    'launch.paths',
    'control character',
  ],
  [
    'timeouts out of order: hook timeout below the hook budget',
    json(settings('auto-recall'), (s) => (s.hooks.UserPromptSubmit[0].hooks[0].timeout = 5000)),
    true,
    'settings.hooks',
    'timeout 5000 must be 8 (8000 ms in the unit Qwen 0.24.4 reads',
  ],
  [
    'the legacy millisecond form of the hook timeout (Qwen 0.24.4 reads seconds and warns about it)',
    json(settings('auto-recall'), (s) => (s.hooks.UserPromptSubmit[0].hooks[0].timeout = 8000)),
    true,
    'settings.hooks',
    'timeout 8000 must be 8 (8000 ms in the unit Qwen 0.24.4 reads',
  ],
  [
    'timeouts out of order: v1 timeout above the MCP call timeout',
    json(file('profiles/on-demand/external-context.json'), (c) => (c.timeoutMs = 9000)),
    true,
    'timeouts',
    'timeoutMs 9000 must stay below the MCP call timeout 8000',
  ],
  [
    'timeouts out of order: MCP timeout below the provider timeout',
    json(file('profiles/write/mcp.json'), (m) => (m.mcpServers['external-context'].timeout = 3000)),
    true,
    'timeouts',
    'must stay below the MCP call timeout 3000',
  ],
  [
    'disableAllHooks: true',
    json(settings('on-demand'), (s) => (s.disableAllHooks = true)),
    true,
    'settings.baseline',
    'disableAllHooks is true; the managed baseline requires false',
  ],
  [
    'approval mode changed to yolo',
    json(settings('write'), (s) => (s.tools.approvalMode = 'yolo')),
    true,
    'settings.baseline',
    'tools.approvalMode is "yolo"',
  ],
  [
    'a disabled slash command re-enabled',
    json(settings('auto-recall'), (s) => (s.slashCommands.disabled = ['cd'])),
    true,
    'settings.baseline',
    'slashCommands.disabled lacks the managed baseline entries',
  ],
  [
    'speculation turned on',
    json(settings('auto-recall'), (s) => (s.ui.enableSpeculation = true)),
    true,
    'settings.baseline',
    'ui.enableSpeculation is true',
  ],
  [
    'a forbidden argv flag',
    json(launch('on-demand'), (p) => p.argv.push('--yolo')),
    true,
    'policy.arguments',
    'refused Qwen option "--yolo" (YOLO approves every tool)',
  ],
  [
    'a positional prompt in argv',
    json(launch('auto-recall'), (p) => p.argv.push('hello')),
    true,
    'policy.arguments',
    'Qwen would read it as a headless prompt',
  ],
  [
    'a subcommand in argv',
    json(launch('auto-recall'), (p) => p.argv.unshift('serve')),
    true,
    'policy.arguments',
    'refused Qwen subcommand "serve"',
  ],
  [
    '--mcp-config moved into the base argv',
    json(launch('write'), (p) => p.argv.push(...p.externalContext.argv)),
    true,
    'policy.arguments',
    'belongs in externalContext.argv',
  ],
  [
    'a forbidden inherited variable',
    json(launch('write'), (p) => p.environment.inherit.push('NODE_OPTIONS')),
    true,
    'policy.environment',
    'NODE_OPTIONS is forbidden by the environment policy',
  ],
  [
    'a forced variable set by the plan',
    json(launch('on-demand'), (p) => (p.environment.set.QWEN_CODE_SAFE_MODE = '1')),
    true,
    'policy.environment',
    'QWEN_CODE_SAFE_MODE is forbidden',
  ],
  [
    'a relative PATH entry',
    json(launch('on-demand'), (p) => (p.environment.PATH = 'bin:/usr/bin')),
    true,
    'launch.paths',
    'entry "bin" is not an absolute posix path',
  ],
  [
    'a pinned file variable redirected',
    json(
      launch('auto-recall'),
      (p) => (p.environment.files.QWEN_CODE_SYSTEM_SETTINGS_PATH = '/tmp/settings.json'),
    ),
    true,
    'launch.paths',
    'environment.files must pin exactly',
  ],
  [
    'a relative CA file',
    json(launch('write'), (p) => (p.environment.files.NODE_EXTRA_CA_CERTS = 'ca.pem')),
    true,
    'launch.paths',
    'environment.files.NODE_EXTRA_CA_CERTS "ca.pem" is not an absolute posix path',
  ],
  [
    'a CA file inside installDir',
    json(
      launch('write'),
      (p) => (p.environment.files.NODE_EXTRA_CA_CERTS = '/opt/qwen-managed/profiles/write/ca.pem'),
    ),
    true,
    'launch.paths',
    'environment.files.NODE_EXTRA_CA_CERTS "/opt/qwen-managed/profiles/write/ca.pem" is inside installDir',
  ],
  [
    'an installDir inside the repository',
    json(launch('write'), (p) => (p.cwd = '/opt')),
    true,
    'launch.paths',
    'installDir "/opt/qwen-managed" is inside the repository "/opt" (cwd): whoever writes there could replace the hooks',
  ],
  [
    'profiles disagreeing on the CA file',
    json(launch('auto-recall'), (p) => (p.environment.files.NODE_EXTRA_CA_CERTS = '/etc/ca.pem')),
    true,
    'launch.consistency',
    'profiles disagree on environment.files.NODE_EXTRA_CA_CERTS: absent, "/etc/ca.pem"',
  ],
  [
    'a file variable the launcher does not pin',
    json(launch('on-demand'), (p) => (p.environment.files.NODE_OPTIONS = '/etc/ca.pem')),
    true,
    'launch.paths',
    'environment.files must pin exactly',
  ],
  [
    'a wrong installId',
    json(launch('auto-recall'), (p) => (p.installId = '0000000000000000')),
    true,
    'launch.paths',
    'installId 0000000000000000 is not the first 16 hex digits',
  ],
  [
    'profiles disagreeing on node',
    json(launch('write'), (p) => (p.node = '/usr/bin/node')),
    true,
    'launch.consistency',
    'profiles disagree on node',
  ],
  [
    'a changed runtime byte',
    async (dir) => fs.appendFile(file('runtime/auto-recall.js')(dir), ' '),
    false,
    'files.sha256',
    'differs from manifest.json',
  ],
  [
    'a changed runtime byte, manifest re-hashed (caught by drift)',
    async (dir) => fs.appendFile(file('runtime/mcp-server.js')(dir), ' '),
    true,
    'drift',
    'differs from a fresh render',
    { deployment: true },
  ],
  [
    'a code cache from another machine, manifest re-hashed (drift says what this one made)',
    async (dir) => fs.writeFile(file('runtime/auto-recall-search.v8cache')(dir), 'made by another node'),
    true,
    'drift',
    'differs from a fresh render of deployment.json (none was made here: the pinned node /opt/node-22/bin/node is not on this machine;',
    { deployment: true },
  ],
  [
    "the launcher's code cache from another machine, manifest re-hashed (drift says what this one made)",
    async (dir) => fs.writeFile(file('runtime/launch-qwen.v8cache')(dir), 'made by another node'),
    true,
    'drift',
    'differs from a fresh render of deployment.json (none was made here: the pinned node /opt/node-22/bin/node is not on this machine;',
    { deployment: true },
  ],
  // Negative control (by hand): each of these said only "is not listed in manifest.json", and a
  // re-render then moved the file added by hand to backups/ unannounced.
  [
    'an unlisted file',
    async (dir) => fs.writeFile(file('runtime/extra.js')(dir), ''),
    false,
    'files.unlisted',
    'runtime/extra.js is not listed in manifest.json (every file except backups/ must be); fix: move it outside installDir (render owns the tree: the next render moves it to backups/)',
  ],
  [
    'a lock left by a killed render',
    async (dir) => fs.writeFile(file('.qwen-managed.lock')(dir), '{}'),
    false,
    'files.unlisted',
    '.qwen-managed.lock is not listed in manifest.json (every file except backups/ must be); it is the lock of a render or rollback, running or killed; fix: wait for it to finish, or run render again',
  ],
  [
    'a temp file of a killed render',
    async (dir) => fs.writeFile(file('profiles/on-demand/.mcp.json.qwen-managed-tmp-1-2')(dir), ''),
    false,
    'files.unlisted',
    'it is a temp file of a render or rollback killed mid-write; fix: run render again (it sweeps them)',
  ],
  [
    'a listed file deleted',
    async (dir) => fs.rm(file('profiles/on-demand/trusted-folders.json')(dir)),
    false,
    'files.present',
    'listed in manifest.json but missing',
  ],
  [
    'a mode changed',
    async (dir) => fs.chmod(file('bin/launch-qwen')(dir), 0o777),
    false,
    'files.mode',
    'mode 0777 differs from manifest.json (0755)',
  ],
  [
    'a symlink in the tree',
    async (dir) => fs.symlink('/etc/passwd', file('runtime/link.js')(dir)),
    false,
    'files.irregular',
    'runtime/link.js is not a regular file',
  ],
  [
    'hook command not starting with exec',
    json(
      settings('auto-recall'),
      (s) =>
        (s.hooks.UserPromptSubmit[0].hooks[0].command =
          "'/opt/node-22/bin/node' '/opt/qwen-managed/runtime/auto-recall.js'"),
    ),
    true,
    'settings.hooks',
    'command must start with `exec`',
  ],
  [
    'hook command on another node',
    json(
      settings('write'),
      (s) =>
        (s.hooks.PreToolUse[0].hooks[0].command =
          "exec '/usr/bin/node' '/opt/qwen-managed/runtime/write-confirmation.js'"),
    ),
    true,
    'settings.hooks',
    "command must be \"exec '/opt/node-22/bin/node'",
  ],
  [
    'an async flag on a managed hook',
    json(settings('auto-recall'), (s) => (s.hooks.UserPromptSubmit[0].hooks[0].async = true)),
    true,
    'settings.hooks',
    'unexpected key "async"',
  ],
  [
    'the auto-recall hook added to on-demand',
    async (dir) => {
      const ar = JSON.parse(await fs.readFile(settings('auto-recall')(dir), 'utf8'));
      await editJson(
        settings('on-demand')(dir),
        (s) => (s.hooks.UserPromptSubmit = ar.hooks.UserPromptSubmit),
      );
    },
    true,
    'settings.hooks',
    'belongs to the auto-recall profile, not on-demand',
  ],
  [
    'a foreign hook in system settings',
    json(
      settings('on-demand'),
      (s) => (s.hooks.Stop = [{ hooks: [{ type: 'command', command: 'curl evil', name: 'x' }] }]),
    ),
    true,
    'settings.hooks',
    'unexpected hook "x"',
  ],
  [
    'mcp.excluded removed from auto-recall',
    json(settings('auto-recall'), (s) => delete s.mcp),
    true,
    'settings.exclusivity',
    'mcp must be {"excluded":["external-context"],"allowed":[]} in the auto-recall profile',
  ],
  [
    'mcpServers added to on-demand system settings',
    json(settings('on-demand'), (s) => (s.mcpServers = { x: { command: 'x' } })),
    true,
    'settings.exclusivity',
    'mcpServers must be absent',
  ],
  [
    'the external-context permission in auto-recall',
    json(
      settings('auto-recall'),
      (s) => (s.permissions = { allow: ['mcp__external-context__context_search'] }),
    ),
    true,
    'settings.exclusivity',
    'permissions.allow must be "absent" in the auto-recall profile',
  ],
  [
    'remember allowed instead of asked in write',
    json(
      settings('write'),
      (s) =>
        (s.permissions = {
          allow: ['mcp__external-context__context_search', 'mcp__external-context__context_remember'],
        }),
    ),
    true,
    'settings.exclusivity',
    'permissions.ask must be ["mcp__external-context__context_remember"]',
  ],
  [
    'the two-tool includeTools cut to one in write',
    json(
      file('profiles/write/mcp.json'),
      (m) => (m.mcpServers['external-context'].includeTools = ['context_search']),
    ),
    true,
    'mcp.config',
    'includeTools must be ["context_search","context_remember"]',
  ],
  [
    'alwaysLoadTools off',
    json(
      file('profiles/on-demand/mcp.json'),
      (m) => (m.mcpServers['external-context'].alwaysLoadTools = false),
    ),
    true,
    'mcp.config',
    'alwaysLoadTools must be true',
  ],
  [
    'provider config version 1 in auto-recall',
    async (dir) =>
      fs.copyFile(
        file('profiles/on-demand/external-context.json')(dir),
        file('profiles/auto-recall/external-context.json')(dir),
      ),
    true,
    'provider.config',
    'the auto-recall profile needs provider config version 2, found 1',
  ],
  [
    'writes enabled in on-demand',
    json(file('profiles/on-demand/external-context.json'), (c) => (c.write = { enabled: true })),
    true,
    'provider.config',
    'Memory writes need a Mem0 provider',
  ],
  [
    'an unknown key in the provider config',
    json(file('profiles/write/external-context.json'), (c) => (c.extra = 1)),
    true,
    'provider.config',
    'does not match the schema',
  ],
  [
    'system defaults changed',
    json(file('profiles/on-demand/system-defaults.json'), (d) => (d.hooks = {})),
    true,
    'settings.defaults',
    'must be exactly {"$version":4}',
  ],
  [
    'the filesystem root trusted (parents of the repository would count)',
    json(file('profiles/write/trusted-folders.json'), (t) => (t['/'] = 'TRUST_FOLDER')),
    true,
    'settings.trusted-folders',
    'must be exactly {"/":"DO_NOT_TRUST","/srv/repos/app":"TRUST_FOLDER"}',
  ],
  [
    'another folder trusted',
    json(file('profiles/write/trusted-folders.json'), (t) => (t['/home/dev/elsewhere'] = 'TRUST_FOLDER')),
    true,
    'settings.trusted-folders',
    'must be exactly {"/":"DO_NOT_TRUST","/srv/repos/app":"TRUST_FOLDER"}',
  ],
  [
    "the repository untrusted behind the plan's back",
    json(file('profiles/write/trusted-folders.json'), (t) => (t['/srv/repos/app'] = 'DO_NOT_TRUST')),
    true,
    'settings.trusted-folders',
    'must be exactly {"/":"DO_NOT_TRUST","/srv/repos/app":"TRUST_FOLDER"}',
  ],
  [
    'profile marked rolled back but hooks present',
    json(file('manifest.json'), (m) => (m.profiles['auto-recall'].state = 'rolled-back')),
    false,
    'settings.hooks',
    'still present but the profile is rolled back',
  ],
  [
    'a broken runtime (smoke run)',
    async (dir) => fs.writeFile(file('runtime/approval-guard.js')(dir), "process.stdout.write('oops')"),
    true,
    'smoke',
    'should give `{}` out',
    { smoke: true },
  ],
  [
    'drift: the deployment changed since render',
    async () => {},
    false,
    'drift',
    'rendered from a different deployment.json',
    { deployment: { edit: (raw) => (raw.settings.model.name = 'another-model') } },
  ],
];

describe('verify catches single mutations of a good install', () => {
  it(`has at least 25 rows (${MUTATIONS.length})`, () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(MUTATIONS)('%s', async (_name, mutate, rehashAfter, id, fragment, options = {}) => {
    const dir = path.join(await tempDir(), 'install');
    await fs.cp(good, dir, { recursive: true, verbatimSymlinks: true });
    await mutate(dir);
    if (rehashAfter) await rehash(dir);
    let deployment = options.deployment === undefined ? undefined : deploymentFile;
    if (typeof options.deployment === 'object') {
      const raw = JSON.parse(await fs.readFile(deploymentFile, 'utf8'));
      options.deployment.edit(raw);
      deployment = path.join(dir, '..', 'changed.json');
      await fs.writeFile(deployment, JSON.stringify(raw));
    }
    const report = await verify(dir, {
      ...(deployment === undefined ? {} : { deployment }),
      smoke: options.smoke === true,
    });
    expect(report.ok).toBe(false);
    const hit = report.checks.find((c) => !c.ok && c.id === id && c.message.includes(fragment));
    expect(hit, failures(report).join('\n')).toBeDefined();
  });
});
