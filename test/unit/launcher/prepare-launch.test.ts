// prepareLaunch: the launcher's whole decision, read-only. The launcher executes it and `plan` prints
// it, so this pins the decision itself: what runs, what is written before, what refuses — and that
// deciding writes nothing (every mutating call of the injected file system throws).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchError } from '../../../launcher/messages.js';
import {
  type LaunchFs,
  type LaunchInput,
  prepareLaunch,
  type QwenLaunchDecision,
  REDACTED,
  repositoryRefusal,
} from '../../../launcher/prepare-launch.js';
import {
  buildInstallDir,
  type InstallFixture,
  type InstallFixtureOptions,
} from '../../fixtures/install-dir.js';

const HOME = '/home/dev';
const TOKEN = 'tok-Zx81Qm';

let base: string;
let counter = 0;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-prepare-')));
  fs.chmodSync(base, 0o755);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function fixture(options: Partial<InstallFixtureOptions> = {}): InstallFixture {
  const root = path.join(base, `f${counter++}`);
  fs.mkdirSync(root, { mode: 0o755 });
  const qwenCli = path.join(root, 'qwen', 'cli.js');
  fs.mkdirSync(path.dirname(qwenCli), { mode: 0o755 });
  fs.writeFileSync(qwenCli, '// stub\n', { mode: 0o644 });
  const bundle = path.join(root, 'bundle.js');
  fs.writeFileSync(bundle, '// launcher bundle stand-in\n');
  fs.writeFileSync(path.join(root, 'context.token'), `${TOKEN}\n`, { mode: 0o644 });
  return buildInstallDir({
    root,
    launcherBundle: bundle,
    node: process.execPath,
    qwenCli,
    profiles: ['on-demand', 'auto-recall'],
    environment: { inherit: ['TERM'], set: {} },
    credentials: {
      CONTEXT_API_TOKEN: { file: path.join(root, 'context.token') },
      MODEL_KEY: { inherit: true },
    },
    providerCredentials: ['CONTEXT_API_TOKEN'],
    ...options,
  });
}

/** node:fs for reading; any call that would change the file system throws (opening too, unless read-only). */
const READ_ONLY: LaunchFs = new Proxy(fs, {
  get(target, name: string) {
    if (name === 'openSync')
      return (file: string, flags: string) => {
        if (flags !== 'r') throw new Error(`prepareLaunch called fs.openSync with ${flags}`);
        return fs.openSync(file, 'r');
      };
    if (
      /^(mkdir|write|append|chmod|chown|rename|link|symlink|unlink|rm|copy|truncate|utimes|open)/.test(name)
    )
      return () => {
        throw new Error(`prepareLaunch called fs.${name}`);
      };
    return Reflect.get(target, name);
  },
}) as LaunchFs;

const input = (f: InstallFixture, extra: Partial<LaunchInput> = {}): LaunchInput => ({
  installDir: f.installDir,
  kind: 'on-demand',
  hostPlatform: 'linux',
  purpose: 'launch',
  fs: READ_ONLY,
  callerEnv: { TERM: 'xterm', MODEL_KEY: 'model-secret', HOME: '/elsewhere' },
  home: HOME,
  terminal: { stdinIsTTY: true, stdoutIsTTY: true },
  loadProject: () => import('../../../launcher/repository-project.js'),
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<{ exitCode: number; problems: string[] }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LaunchError) return { exitCode: error.exitCode, problems: [...error.problems] };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Qwen's decision (a Qwen profile never gets OpenClaw's). */
async function prepareQwen(i: LaunchInput): Promise<QwenLaunchDecision> {
  const decision = await prepareLaunch(i);
  if (decision.host !== 'qwen') throw new Error(`expected Qwen's decision, got ${decision.host}'s`);
  return decision;
}

describe('prepareLaunch', () => {
  it('decides the command, the environment and what is written before, without writing anything', async () => {
    const f = fixture();
    const decision = await prepareQwen(input(f));
    const qwenHome = `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/home`;
    const plan = f.plans['on-demand']!;
    expect(decision.command.node).toBe(process.execPath);
    expect(decision.command.argv).toEqual([
      plan.qwenCli,
      '--extensions',
      'none',
      '--mcp-config',
      f.profileFile('on-demand', 'mcp.json'),
    ]);
    expect(decision.command.cwd).toBe(f.cwd);
    expect(decision.command.env).toMatchObject({
      TERM: 'xterm',
      CONTEXT_API_TOKEN: TOKEN,
      MODEL_KEY: 'model-secret',
      HOME,
      QWEN_HOME: qwenHome,
      QWEN_CODE_SYSTEM_DEFAULTS_PATH: `${HOME}/.local/share/qwen-managed/${f.installId}/on-demand/system-defaults.json`,
    });
    expect(decision.qwenHome).toBe(qwenHome);
    expect(decision.launchDefaults.file).toBe(decision.command.env['QWEN_CODE_SYSTEM_DEFAULTS_PATH']);
    expect(JSON.parse(decision.launchDefaults.content!)).toMatchObject({
      $version: 4,
      advanced: { excludedEnvVars: expect.any(Array) },
    });
    expect([decision.refused, decision.notice, repositoryRefusal(decision)]).toEqual([
      [],
      undefined,
      undefined,
    ]);
  });

  it('plan: the same command with every credential value redacted, the missing ones named, nothing read to write', async () => {
    const f = fixture();
    const launch = await prepareQwen(input(f));
    const plan = await prepareQwen(
      input(f, { purpose: 'plan', terminal: undefined, callerEnv: { TERM: 'xterm' } }),
    );
    expect(plan.command.argv).toEqual(launch.command.argv);
    expect([plan.command.env['CONTEXT_API_TOKEN'], plan.command.env['MODEL_KEY']]).toEqual([
      REDACTED,
      REDACTED,
    ]);
    expect(plan.missingCredentials).toEqual(['MODEL_KEY']);
    expect(plan.launchDefaults).toEqual({ file: launch.launchDefaults.file });
  });

  it('refuses, before anything is written, what the repository would carry into Qwen', async () => {
    const f = fixture();
    fs.mkdirSync(path.join(f.cwd, '.qwen'));
    fs.writeFileSync(path.join(f.cwd, '.qwen', 'settings.json'), '{"hooks":{"SessionStart":[]}}');
    const decision = await prepareQwen(input(f));
    expect(decision.refused).toEqual([expect.stringContaining('/.qwen/settings.json: hooks.SessionStart: ')]);
    expect(repositoryRefusal(decision)?.problems).toEqual([
      ...decision.refused,
      '1 thing(s) in the repository or your home would change the managed on-demand session; nothing was started',
    ]);
  });

  it.each<[string, Partial<LaunchInput>, string[]]>([
    [
      'a terminal missing',
      { terminal: { stdinIsTTY: false, stdoutIsTTY: true } },
      [
        'standard input is not a terminal: Qwen would read it as a headless prompt; run launch-qwen in a terminal',
      ],
    ],
    [
      'an inherited credential missing',
      { callerEnv: { TERM: 'xterm' } },
      ['credential MODEL_KEY is taken from your environment, but it is not set; set it and retry'],
    ],
  ])('refuses %s', async (_label, extra, problems) => {
    expect(await refusal(prepareLaunch(input(fixture(), extra)))).toEqual({ exitCode: 1, problems });
  });

  it('a rolled-back profile: no provider credential, the notice', async () => {
    const f = fixture({ states: { 'on-demand': 'rolled-back' } });
    const decision = await prepareQwen(input(f));
    expect(decision.command.env['CONTEXT_API_TOKEN']).toBeUndefined();
    expect(decision.notice).toBe(
      'launch-qwen: profile "on-demand" is rolled back; starting Qwen without external context.',
    );
  });
});
