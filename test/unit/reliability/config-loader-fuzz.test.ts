// Fuzzing the runtime config loader (docs/contracts.md, "Runtime provider config"): whatever the file, the bytes or the
// environment, the only failure is a ConfigurationError with one of the fixed messages, and neither
// its message nor its JSON form carries the credential, the credential's variable name, a config
// value or a stack frame. loadRuntimeConfig must also agree with its steps run one by one, so its
// catch-all can never hide an unexpected exception behind a plausible code.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIGURATION_MESSAGES, ConfigurationError } from '../../../src/base/errors.js';
import { loadRuntimeConfig, parseRuntimeConfig } from '../../../src/config/load.js';
import { resolveCredential, resolveRepositoryRoot } from '../../../src/config/load-core.js';
import { MEM0_PRESET_NAMES } from '../../../src/contracts/mem0-presets.js';
import { PROVIDER_CONFIG_VARIABLE } from '../../../src/contracts/names.js';
import { CREDENTIALS } from '../../fixtures/canaries.js';
import { mutate, mutationArb } from '../../fixtures/json-mutations.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';

const CANARY = CREDENTIALS.CONTEXT_API_TOKEN;
/** The credential's variable name: runtimes must not reveal it either. */
const VARIABLE = 'CANARY_VAR_Qz8Lw3';
const FIXED_MESSAGES = new Set<string>(Object.values(CONFIGURATION_MESSAGES));
const STACK_FRAME = /\bat .*:\d+:\d+|\n\s+at /;
const LIMITS = { interruptAfterTimeLimit: 8_000 } as const;

const EXPECTED_CLEAN =
  'only ConfigurationError, with one of the fixed messages; no credential, variable name, config value or stack frame in its message or JSON';
const SUBJECTS = {
  mutations:
    'parseRuntimeConfig: 0–3 mutations of valid v1/v2 configs (every provider type and preset), scope and write reshuffles × 600',
  json: 'parseRuntimeConfig: arbitrary JSON values × 300',
  text: 'parseRuntimeConfig: random text and mutated config text × 300',
  load: 'loadRuntimeConfig: mutated files × mutated environments (path, credential, placeholder, prototype) × 300',
  agree: 'loadRuntimeConfig agrees with its steps run one by one (same config or same error code) × 300',
};
const EXPECTED = {
  mutations: EXPECTED_CLEAN,
  json: EXPECTED_CLEAN,
  text: EXPECTED_CLEAN,
  load: `${EXPECTED_CLEAN}; success only with the credential's exact value`,
  agree: 'same outcome',
};
const section = new KeyedSection(
  'fuzz-config',
  `fast-check properties over the runtime config loader. The credential variable is named \`${VARIABLE}\` and ` +
    'holds a canary; mutations also plant the canary and the variable name in config values and keys.',
  SUBJECTS,
  EXPECTED,
);

// Created at load time: the templates (built when the module loads) name the repository root.
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-config-fuzz-')));
const repo = path.join(dir, 'repo');
fs.mkdirSync(repo);
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  section.write();
});

const SCOPES: Record<string, Record<string, string>> = {
  'mem0-platform-v3': { appId: 'repository-memory' },
  'mem0-v3': { appId: 'repository-memory' },
  'mem0-oss-rest-2026-08': { userId: 'repo', agentId: 'qwen-code' },
  'mem0-oss-2026-08': { userId: 'repo' },
  'aliyun-polardb-mysql-2026-08': { userId: 'repo', agentId: 'qwen-code' },
  'mem0-v2': { userId: 'repo' },
};

function providers(): Record<string, unknown>[] {
  return [
    { type: 'generic-http-search-v1', baseUrl: 'https://context.example.com', tokenEnv: VARIABLE },
    { type: 'mem0-platform-v3', apiKeyEnv: VARIABLE, appId: 'repository-memory' },
    { type: 'dataworks-bff-memory-v1', baseUrl: 'https://bff.example.com', tokenEnv: VARIABLE },
    ...MEM0_PRESET_NAMES.map((preset) => ({
      type: 'mem0',
      preset,
      endpoint: { origin: 'http://127.0.0.1:8080', basePath: '/mem0' },
      credentialEnv: VARIABLE,
      scope: SCOPES[preset],
    })),
  ];
}

/** Valid configs of both versions, with write where the provider allows it. */
function templates(): Record<string, unknown>[] {
  return providers().flatMap((provider) => {
    const writes = provider['type'] !== 'generic-http-search-v1';
    return [
      { version: 1, timeoutMs: 5000, provider, ...(writes ? { write: { enabled: true } } : {}) },
      { version: 2, autoRecall: { repositoryRoot: repo, timeoutMs: 1500 }, provider },
    ];
  });
}

const interesting = fc.oneof(
  fc.constantFrom<unknown>(
    CANARY,
    VARIABLE,
    `\${${VARIABLE}}`,
    '',
    ' ',
    '/',
    'relative/path',
    'http://example.com',
    'https://user:pass@example.com',
    'https://example.com/path?q#f',
    'http://[::1]:80',
    '__proto__',
    'toString',
    0,
    -1,
    1.5,
    30001,
    5001,
    1e300,
    true,
    false,
    null,
    [],
    {},
    { enabled: false },
    { enabled: true },
    { appId: 'a' },
    { userId: 'u', agentId: 'g' },
    1,
    2,
    'mem0',
    'mem0-v2',
    'generic-http-search-v1',
    'dataworks-bff-memory-v1',
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', CANARY, VARIABLE, 'write', 'extra', ''),
  fc.string({ maxLength: 8 }),
);

const mutation = mutationArb(interesting, key);

const template = fc.constantFrom(...templates());
/** Schema-valid variations that only the later rules refuse: a preset's scope keys, write on any provider. */
const reshaped = fc
  .tuple(
    template,
    fc.record(
      { userId: fc.constant('u'), agentId: fc.constant('g'), appId: fc.constant('a') },
      { requiredKeys: [] },
    ),
    fc.boolean(),
  )
  .map(([t, scope, write]) => {
    const config = structuredClone(t) as Record<string, any>;
    if (config['provider'].type === 'mem0') config['provider'].scope = scope;
    if (config['version'] === 1) {
      if (write) config['write'] = { enabled: true };
      else delete config['write'];
    }
    return config;
  });
const mutatedConfig = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(template, fc.array(mutation, { maxLength: 3 })).map(([t, ms]) => mutate(t, ms)),
  },
  { weight: 1, arbitrary: reshaped },
);

/** The one acceptable failure. */
function expectCleanError(error: unknown): ConfigurationError {
  expect(error).toBeInstanceOf(ConfigurationError);
  const e = error as ConfigurationError;
  expect(FIXED_MESSAGES.has(e.message)).toBe(true);
  expect(e.message).toBe(CONFIGURATION_MESSAGES[e.code]);
  const json = JSON.stringify(e);
  for (const text of [e.message, json]) {
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(VARIABLE);
    expect(text).not.toMatch(STACK_FRAME);
    expect(text).not.toContain(dir);
  }
  for (const segment of e.keyPath ?? []) expect(['string', 'number']).toContain(typeof segment);
  return e;
}

function parseOutcome(text: string, version: 1 | 2): 'ok' | ConfigurationError {
  try {
    parseRuntimeConfig(text, version);
    return 'ok';
  } catch (error) {
    return expectCleanError(error);
  }
}

/** loadRuntimeConfig's overloads take a literal version. */
const load = (env: Record<string, string | undefined>, version: 1 | 2) =>
  version === 1 ? loadRuntimeConfig(env, 1) : loadRuntimeConfig(env, 2);

function check(subject: keyof typeof SUBJECTS, property: fc.IProperty<any>, numRuns: number): void {
  section.checkProperty(subject, fc.check(property, { numRuns, ...LIMITS }));
}

describe('parseRuntimeConfig never throws anything but a clean ConfigurationError', () => {
  it(SUBJECTS.mutations, () => {
    check(
      'mutations',
      fc.property(mutatedConfig, fc.constantFrom<1 | 2>(1, 2), (config, version) => {
        parseOutcome(JSON.stringify(config), version);
      }),
      600,
    );
  });

  it(SUBJECTS.json, () => {
    check(
      'json',
      fc.property(fc.jsonValue(), fc.constantFrom<1 | 2>(1, 2), (value, version) => {
        parseOutcome(JSON.stringify(value) ?? '', version);
      }),
      300,
    );
  });

  it(SUBJECTS.text, () => {
    const mutatedText = fc
      .tuple(template, fc.nat(), fc.nat(), fc.string({ unit: 'binary', maxLength: 4 }))
      .map(([t, at, cut, insert]) => {
        const text = JSON.stringify(t);
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(Math.min(text.length, i + (cut % 4)));
      });
    check(
      'text',
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), mutatedText),
        fc.constantFrom<1 | 2>(1, 2),
        (text, version) => {
          parseOutcome(text, version);
        },
      ),
      300,
    );
  });
});

describe('loadRuntimeConfig over real files and hostile environments', () => {
  let n = 0;
  const fileContent = fc.oneof(
    { weight: 4, arbitrary: mutatedConfig.map((c) => Buffer.from(JSON.stringify(c))) },
    { weight: 3, arbitrary: template.map((c) => Buffer.from(JSON.stringify(c))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(65_537, 0x20)) },
  );
  const pathKind = fc.constantFrom(
    'file',
    'file',
    'file',
    'relative',
    'missing',
    'directory',
    'empty',
    'unset',
  );
  const credentialKind = fc.constantFrom(
    'canary',
    'canary',
    'canary',
    'missing',
    'empty',
    'placeholder',
    'inherited',
  );

  function scenario(content: Buffer, pathKindValue: string, credential: string) {
    const file = path.join(dir, `config-${n++}.json`);
    fs.writeFileSync(file, content);
    const configPath: Record<string, string | undefined> = {
      file,
      relative: path.relative(process.cwd(), file),
      missing: path.join(dir, 'missing.json'),
      directory: dir,
      empty: '',
      unset: undefined,
    };
    // `inherited`: the credential only on the prototype, which must never count.
    const env: Record<string, string | undefined> =
      credential === 'inherited' ? Object.create({ [VARIABLE]: CANARY }) : {};
    const chosen = configPath[pathKindValue];
    if (chosen !== undefined) env[PROVIDER_CONFIG_VARIABLE] = chosen;
    if (credential === 'canary') env[VARIABLE] = CANARY;
    if (credential === 'empty') env[VARIABLE] = '';
    if (credential === 'placeholder') env[VARIABLE] = `\${${VARIABLE}}`;
    return { env, file, content };
  }

  it(SUBJECTS.load, () => {
    check(
      'load',
      fc.property(
        fileContent,
        pathKind,
        credentialKind,
        fc.constantFrom<1 | 2>(1, 2),
        (content, p, c, version) => {
          const { env } = scenario(content, p, c);
          try {
            const loaded = load(env, version);
            expect(loaded.config.version).toBe(version);
            expect(loaded.credential).toBe(CANARY);
          } catch (error) {
            expectCleanError(error);
          }
        },
      ),
      300,
    );
  });

  it(SUBJECTS.agree, () => {
    check(
      'agree',
      fc.property(fileContent, credentialKind, fc.constantFrom<1 | 2>(1, 2), (content, c, version) => {
        const { env } = scenario(content, 'file', c);
        // The steps one by one (docs/contracts.md, "Runtime provider config": order of checks).
        let expected: string;
        if (content.length > 65_536) expected = 'file-too-large';
        else {
          let text: string | undefined;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(content);
          } catch {
            expected = 'file-not-utf8';
          }
          expected ??= 'ok';
          if (text !== undefined) {
            try {
              const config = parseRuntimeConfig(text, version);
              resolveCredential(env, config.provider);
              if (config.version === 2) resolveRepositoryRoot(config.autoRecall.repositoryRoot);
            } catch (error) {
              expected = expectCleanError(error).code;
            }
          }
        }
        let actual = 'ok';
        try {
          load(env, version);
        } catch (error) {
          actual = expectCleanError(error).code;
        }
        expect(actual).toBe(expected);
      }),
      300,
    );
  });
});
