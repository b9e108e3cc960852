import { describe, expect, it } from 'vitest';
import { buildEnv, computeEnv } from '../../../launcher/env.js';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import { FORCED_ENV } from '../../fixtures/install-dir.js';
import { PROFILE_DIR, samplePlan } from './plan-fixture.js';

const HOME = '/home/dev';
const QWEN_HOME = '/home/dev/.local/share/qwen-managed/0123456789abcdef/on-demand/home';
const PINNED_FILES = {
  QWEN_CODE_SYSTEM_SETTINGS_PATH: `${PROFILE_DIR}/system-settings.json`,
  QWEN_CODE_SYSTEM_DEFAULTS_PATH: `${PROFILE_DIR}/system-defaults.json`,
  QWEN_CODE_TRUSTED_FOLDERS_PATH: `${PROFILE_DIR}/trusted-folders.json`,
};
/** Everything samplePlan() passes to Qwen whatever the caller's environment: nothing comes from the caller. */
const LAUNCHER_ONLY = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  NO_PROXY: 'localhost,127.0.0.1,[::1]',
  CONTEXT_API_TOKEN: 'file-token',
  ...FORCED_ENV,
  HOME,
  ...PINNED_FILES,
  QWEN_HOME,
  QWEN_RUNTIME_DIR: QWEN_HOME,
  QWEN_EXTERNAL_CONTEXT_CONFIG: `${PROFILE_DIR}/external-context.json`,
};

/** A hostile caller: every bypass variable the spec names, plus the usual shell noise. */
const HOSTILE_CALLER = {
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  OPENAI_API_KEY: 'sk-model',
  PATH: '/home/dev/evil-bin:/usr/bin',
  HOME: '/tmp/fake-home',
  XDG_DATA_HOME: '/tmp/fake-data',
  NODE_OPTIONS: '--require /tmp/evil.js',
  QWEN_CODE_RELAUNCH_ARGS: '["--yolo"]',
  BASH_ENV: '/tmp/evil.sh',
  LD_PRELOAD: '/tmp/evil.so',
  QWEN_CODE_SAFE_MODE: '1',
  QWEN_CODE_SIMPLE: '1',
  QWEN_HOME: '/tmp/shared-home',
  QWEN_EXTERNAL_CONTEXT_CONFIG: '/tmp/evil-config.json',
  CONTEXT_API_TOKEN: 'caller-token-must-not-win',
  SSH_AUTH_SOCK: '/tmp/ssh-agent',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example',
};

const options = (overrides: Partial<Parameters<typeof buildEnv>[3]> = {}) => ({
  home: HOME,
  qwenHome: QWEN_HOME,
  credentials: { CONTEXT_API_TOKEN: 'file-token' },
  platform: 'posix' as const,
  externalContextActive: true,
  ...overrides,
});

describe('buildEnv (POSIX)', () => {
  it('builds exactly the allow-listed, administrator, forced and pinned variables', () => {
    // Of everything the hostile caller has, only the plan's three allow-listed names pass.
    expect(buildEnv(HOSTILE_CALLER, samplePlan(), ENVIRONMENT_POLICY, options())).toEqual({
      ...LAUNCHER_ONLY,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      OPENAI_API_KEY: 'sk-model',
    });
  });

  it('starts from nothing: an empty caller environment still gets only the launcher values', () => {
    expect(buildEnv({}, samplePlan(), ENVIRONMENT_POLICY, options())).toEqual(LAUNCHER_ONLY);
  });

  it('a rolled-back profile gets no provider config and no provider credential, even via inherit or set', () => {
    const plan = samplePlan((p) => {
      p.environment.inherit.push('CONTEXT_API_TOKEN');
      p.environment.set['CONTEXT_API_TOKEN'] = 'set-token';
    });
    expect(
      buildEnv(HOSTILE_CALLER, plan, ENVIRONMENT_POLICY, options({ externalContextActive: false })),
    ).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      OPENAI_API_KEY: 'sk-model',
      NO_PROXY: 'localhost,127.0.0.1,[::1]',
      ...FORCED_ENV,
      HOME,
      ...PINNED_FILES,
      QWEN_HOME,
      QWEN_RUNTIME_DIR: QWEN_HOME,
    });
  });

  it('keeps a model credential of a rolled-back profile (it is not a provider credential)', () => {
    const plan = samplePlan((p) => {
      p.credentials['MODEL_KEY'] = { inherit: true };
    });
    const env = buildEnv({}, plan, ENVIRONMENT_POLICY, {
      ...options({ externalContextActive: false }),
      credentials: { MODEL_KEY: 'sk-1' },
    });
    expect(env['MODEL_KEY']).toBe('sk-1');
    expect(env['CONTEXT_API_TOKEN']).toBeUndefined();
  });

  // Forbidden names never pass, whatever the plan says: listed for inheriting, set, or as credentials.
  it.each([
    'NODE_OPTIONS',
    'NODE_PATH',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'BASH_ENV',
    'ENV',
    'BASH_FUNC_exec%%',
    'QWEN_CODE_RELAUNCH_ARGS',
    'QWEN_CODE_SAFE_MODE',
    'QWEN_CODE_SIMPLE',
    'QWEN_CODE_DISABLE_CRON',
    'QWEN_HOME',
    'QWEN_RUNTIME_DIR',
    'QWEN_CODE_SYSTEM_SETTINGS_PATH',
    'QWEN_EXTERNAL_CONTEXT_CONFIG',
    'QWEN_CODE_LANG',
    'QWEN_SANDBOX',
    'SANDBOX',
    'QWEN_SANDBOX_PROXY_COMMAND',
    'QWEN_TELEMETRY_ENABLED',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'QWEN_CODE_MEMORY_TEAM',
    'HOME',
    'PATH',
  ])('drops %s from inherit, set and credentials', (name) => {
    const plan = samplePlan((p) => {
      p.environment.inherit = [name];
      p.environment.set = { [name]: 'from-set' };
      p.credentials = { [name]: { inherit: true } };
      p.externalContext.credentials = [];
    });
    const env = buildEnv({ [name]: 'from-caller' }, plan, ENVIRONMENT_POLICY, {
      ...options(),
      credentials: { [name]: 'from-credential' },
    });
    const values = Object.values(env);
    expect(values).not.toContain('from-caller');
    expect(values).not.toContain('from-set');
    expect(values).not.toContain('from-credential');
    const computed = computeEnv({ [name]: 'from-caller' }, plan, ENVIRONMENT_POLICY, {
      ...options(),
      credentials: { [name]: 'from-credential' },
    });
    expect(computed.dropped.map((d) => [d.name, d.from])).toEqual([
      [name, 'inherit'],
      [name, 'set'],
      [name, 'credentials'],
    ]);
  });

  it('lets the administrator value win over an inherited one', () => {
    const plan = samplePlan((p) => {
      p.environment.inherit = ['NO_PROXY'];
    });
    expect(buildEnv({ NO_PROXY: '*' }, plan, ENVIRONMENT_POLICY, options())['NO_PROXY']).toBe(
      'localhost,127.0.0.1,[::1]',
    );
  });

  it('ignores file variables other than the three pinned admin files', () => {
    const plan = samplePlan((p) => {
      p.environment.files['NODE_OPTIONS'] = '/tmp/x';
      p.environment.files['SOMETHING_ELSE'] = '/tmp/y';
    });
    const computed = computeEnv({}, plan, ENVIRONMENT_POLICY, options());
    expect(computed.entries.filter((e) => e.source === 'pinned-file')).toEqual([
      {
        name: 'QWEN_CODE_SYSTEM_SETTINGS_PATH',
        value: PINNED_FILES.QWEN_CODE_SYSTEM_SETTINGS_PATH,
        source: 'pinned-file',
      },
      {
        name: 'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
        value: PINNED_FILES.QWEN_CODE_SYSTEM_DEFAULTS_PATH,
        source: 'pinned-file',
      },
      {
        name: 'QWEN_CODE_TRUSTED_FOLDERS_PATH',
        value: PINNED_FILES.QWEN_CODE_TRUSTED_FOLDERS_PATH,
        source: 'pinned-file',
      },
    ]);
    expect(computed.dropped).toEqual([
      { name: 'NODE_OPTIONS', from: 'files', reason: 'not a file variable the launcher pins' },
      { name: 'SOMETHING_ELSE', from: 'files', reason: 'not a file variable the launcher pins' },
    ]);
  });

  it('points Qwen at the launch defaults layer instead of the admin file when the launcher writes one', () => {
    const computed = computeEnv(
      {},
      samplePlan(),
      ENVIRONMENT_POLICY,
      options({ launchDefaults: '/home/dev/d.json' }),
    );
    expect(computed.entries.filter((e) => e.name === 'QWEN_CODE_SYSTEM_DEFAULTS_PATH')).toEqual([
      { name: 'QWEN_CODE_SYSTEM_DEFAULTS_PATH', value: '/home/dev/d.json', source: 'launch-defaults' },
    ]);
  });

  it('reports each inherited name as present or not, and passed or not', () => {
    const plan = samplePlan((p) => {
      p.environment.inherit = ['TERM', 'LANG', 'NODE_OPTIONS'];
    });
    expect(
      computeEnv({ TERM: 'xterm', NODE_OPTIONS: 'x' }, plan, ENVIRONMENT_POLICY, options()).inherited,
    ).toEqual([
      { name: 'TERM', present: true, passed: true },
      { name: 'LANG', present: false, passed: false },
      { name: 'NODE_OPTIONS', present: true, passed: false },
    ]);
  });

  it('never reads inherited members of Object.prototype', () => {
    const plan = samplePlan((p) => {
      p.environment.inherit = ['constructor', 'toString', '__proto__'];
    });
    const env = buildEnv({}, plan, ENVIRONMENT_POLICY, options());
    expect(Object.keys(env)).not.toContain('constructor');
    expect(Object.keys(env)).not.toContain('toString');
    expect(Object.keys(env)).not.toContain('__proto__');
  });

  it('POSIX names are case-sensitive: `Term` is not `TERM`, `node_options` is not forbidden', () => {
    const plan = samplePlan((p) => {
      p.environment.inherit = ['Term', 'node_options'];
    });
    const env = buildEnv(
      { TERM: 'xterm', Term: 'vt100', node_options: 'harmless' },
      plan,
      ENVIRONMENT_POLICY,
      options(),
    );
    expect([env['Term'], env['TERM'], env['node_options']]).toEqual(['vt100', undefined, 'harmless']);
  });
});

describe('buildEnv (Windows name-case rules)', () => {
  const winPlan = (edit: Parameters<typeof samplePlan>[0] = () => {}) =>
    samplePlan((p) => {
      p.platform = 'windows';
      p.environment.PATH = 'C:\\Windows\\System32;C:\\Program Files\\nodejs';
      edit(p);
    });
  const winOptions = options({ platform: 'windows', home: 'C:\\Users\\dev', qwenHome: 'C:\\Users\\dev\\q' });

  it.each([
    ['caller Path is never inherited and never doubles PATH', { Path: 'C:\\evil' }, ['Path'], {}, []],
    ['inherit Term finds TERM', { TERM: 'xterm' }, ['Term'], {}, [['Term', 'xterm']]],
    ['node_options is forbidden in any case', { node_options: '--require x' }, ['node_options'], {}, []],
    ['Ld_Preload is forbidden by prefix in any case', { Ld_Preload: 'x.dll' }, ['Ld_Preload'], {}, []],
    ['comspec is forbidden in any case', { comspec: 'C:\\evil.exe' }, ['comspec'], {}, []],
    [
      'set no_proxy replaces inherited NO_PROXY',
      { NO_PROXY: '*' },
      ['NO_PROXY'],
      { no_proxy: 'localhost' },
      [['no_proxy', 'localhost']],
    ],
    [
      'qwen_code_safe_mode cannot override the forced value',
      { qwen_code_safe_mode: '1' },
      ['qwen_code_safe_mode'],
      { Qwen_Code_Simple: '1' },
      [],
    ],
  ] as const)('%s', (_title, caller, inherit, set, extra) => {
    const plan = winPlan((p) => {
      p.environment.inherit = [...inherit];
      p.environment.set = { ...set };
    });
    const env = buildEnv(caller, plan, ENVIRONMENT_POLICY, winOptions);
    expect(env).toEqual({
      PATH: 'C:\\Windows\\System32;C:\\Program Files\\nodejs',
      ...Object.fromEntries(extra),
      CONTEXT_API_TOKEN: 'file-token',
      ...FORCED_ENV,
      HOME: 'C:\\Users\\dev',
      ...PINNED_FILES,
      QWEN_HOME: 'C:\\Users\\dev\\q',
      QWEN_RUNTIME_DIR: 'C:\\Users\\dev\\q',
      QWEN_EXTERNAL_CONTEXT_CONFIG: `${PROFILE_DIR}/external-context.json`,
    });
    const upper = Object.keys(env).map((k) => k.toUpperCase());
    expect(new Set(upper).size).toBe(upper.length);
  });
});

describe('NODE_EXTRA_CA_CERTS: from the plan pin only (deployment.json tls), never from the caller', () => {
  const PINNED_CA = '/etc/qwen-managed/ca.pem';
  const CALLER_CA = '/home/dev/mitm-ca.pem';
  const POLICY_REASON =
    'adds trusted certificate authorities: provider and model traffic could be intercepted';
  type Edit = (plan: ReturnType<typeof samplePlan>) => void;
  const pin: Edit = (p) => {
    p.environment.files['NODE_EXTRA_CA_CERTS'] = PINNED_CA;
  };

  // [title, plan edits, caller environment, Qwen's NODE_EXTRA_CA_CERTS entry, dropped]
  it.each<[string, Edit[], Record<string, string>, unknown, unknown[]]>([
    [
      'pinned by the plan',
      [pin],
      {},
      { name: 'NODE_EXTRA_CA_CERTS', value: PINNED_CA, source: 'pinned-file' },
      [],
    ],
    ['not pinned, the caller has one', [], { NODE_EXTRA_CA_CERTS: CALLER_CA }, undefined, []],
    [
      'pinned, the caller has one',
      [pin],
      { NODE_EXTRA_CA_CERTS: CALLER_CA },
      { name: 'NODE_EXTRA_CA_CERTS', value: PINNED_CA, source: 'pinned-file' },
      [],
    ],
    [
      'not pinned, the plan inherits it',
      [(p) => p.environment.inherit.push('NODE_EXTRA_CA_CERTS')],
      { NODE_EXTRA_CA_CERTS: CALLER_CA },
      undefined,
      [{ name: 'NODE_EXTRA_CA_CERTS', from: 'inherit', reason: POLICY_REASON }],
    ],
    [
      'pinned, the plan also inherits it',
      [pin, (p) => p.environment.inherit.push('NODE_EXTRA_CA_CERTS')],
      { NODE_EXTRA_CA_CERTS: CALLER_CA },
      { name: 'NODE_EXTRA_CA_CERTS', value: PINNED_CA, source: 'pinned-file' },
      [{ name: 'NODE_EXTRA_CA_CERTS', from: 'inherit', reason: POLICY_REASON }],
    ],
    [
      'not pinned, the plan sets it',
      [(p) => (p.environment.set['NODE_EXTRA_CA_CERTS'] = '/srv/set-ca.pem')],
      {},
      undefined,
      [{ name: 'NODE_EXTRA_CA_CERTS', from: 'set', reason: POLICY_REASON }],
    ],
    [
      'pinned, the plan also sets it',
      [pin, (p) => (p.environment.set['NODE_EXTRA_CA_CERTS'] = '/srv/set-ca.pem')],
      {},
      { name: 'NODE_EXTRA_CA_CERTS', value: PINNED_CA, source: 'pinned-file' },
      [{ name: 'NODE_EXTRA_CA_CERTS', from: 'set', reason: POLICY_REASON }],
    ],
    [
      'not pinned, the plan routes it as a credential',
      [(p) => (p.credentials['NODE_EXTRA_CA_CERTS'] = { inherit: true })],
      { NODE_EXTRA_CA_CERTS: CALLER_CA },
      undefined,
      [{ name: 'NODE_EXTRA_CA_CERTS', from: 'credentials', reason: POLICY_REASON }],
    ],
  ])('%s', (_title, edits, caller, entry, dropped) => {
    const plan = samplePlan((p) => {
      for (const edit of edits) edit(p);
    });
    const computed = computeEnv(caller, plan, ENVIRONMENT_POLICY, {
      ...options(),
      credentials: { CONTEXT_API_TOKEN: 'file-token', NODE_EXTRA_CA_CERTS: CALLER_CA },
    });
    expect(computed.entries.find((e) => e.name === 'NODE_EXTRA_CA_CERTS')).toEqual(entry);
    expect(computed.dropped).toEqual(dropped);
    expect(Object.values(buildEnv(caller, plan, ENVIRONMENT_POLICY, options()))).not.toContain(CALLER_CA);
  });

  it('comes after the three admin files and stays when the profile is rolled back (model traffic needs it too)', () => {
    const computed = computeEnv(
      {},
      samplePlan(pin),
      ENVIRONMENT_POLICY,
      options({ externalContextActive: false }),
    );
    expect(computed.entries.filter((e) => e.source === 'pinned-file').map((e) => e.name)).toEqual([
      'QWEN_CODE_SYSTEM_SETTINGS_PATH',
      'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
      'QWEN_CODE_TRUSTED_FOLDERS_PATH',
      'NODE_EXTRA_CA_CERTS',
    ]);
  });

  it('Windows: a differently cased pin is found and passed under the canonical name, once', () => {
    const plan = samplePlan((p) => {
      p.platform = 'windows';
      p.environment.files['node_extra_ca_certs'] = 'C:\\ProgramData\\qm\\ca.pem';
    });
    const computed = computeEnv(
      { Node_Extra_Ca_Certs: 'C:\\Users\\dev\\mitm.pem' },
      plan,
      ENVIRONMENT_POLICY,
      options({ platform: 'windows' }),
    );
    expect(computed.entries.filter((e) => e.name.toUpperCase() === 'NODE_EXTRA_CA_CERTS')).toEqual([
      { name: 'NODE_EXTRA_CA_CERTS', value: 'C:\\ProgramData\\qm\\ca.pem', source: 'pinned-file' },
    ]);
    expect(computed.dropped).toEqual([]);
  });
});
