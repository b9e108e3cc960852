// The start-up validators, generated from the zod schemas (scripts/generate-validators.ts), must
// answer exactly what their schema answers: the same output, and the same issues in the same order
// (code, key path, expected type, unknown keys) — the hook's ConfigurationError carries the first
// issue's path, the launcher's refusal names up to five. zod is the definition, these its fast form.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { REPOSITORY_ROOT } from '../../../scripts/generate-schemas.js';
import { generateValidator, VALIDATORS } from '../../../scripts/generate-validators.js';
import type { Validation } from '../../../src/base/validation.js';
import { runtimeConfigSchema } from '../../../src/config/schema.js';
import { installManifestSchema } from '../../../src/contracts/install-manifest-schema.js';
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';
import { MEM0_PRESET_NAMES } from '../../../src/contracts/mem0-presets.js';
import { openclawLaunchPlanSchema } from '../../../src/contracts/openclaw-launch.js';
import { validateInstallManifest } from '../../../src/startup/validators/install-manifest.js';
import { validateLaunchPlan } from '../../../src/startup/validators/launch-plan.js';
import { validateOpenclawLaunchPlan } from '../../../src/startup/validators/openclaw-launch-plan.js';
import { validateRuntimeConfig } from '../../../src/startup/validators/runtime-config.js';
import { mutate, mutationArb } from '../../fixtures/json-mutations.js';
import { samplePlan } from '../launcher/plan-fixture.js';

interface ZodSchema {
  safeParse(value: unknown):
    | { success: true; data: unknown }
    | {
        success: false;
        error: { issues: { code: string; path: PropertyKey[]; expected?: unknown; keys?: unknown }[] };
      };
}

/** What both sides say about a document: the output, or the issues' code, path, expected type and keys. */
function zodAnswer(schema: ZodSchema, json: unknown) {
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map(({ code, path, expected, keys }) => ({
    code,
    path,
    ...(expected === undefined ? {} : { expected }),
    ...(keys === undefined ? {} : { keys }),
  }));
  return { ok: false, issues };
}
function generatedAnswer(validation: Validation<unknown>) {
  if (validation.ok) return { ok: true, value: validation.value };
  // `continue` is zod's internal abort flag, not part of what an issue says.
  return { ok: false, issues: validation.issues.map(({ continue: _, ...issue }) => issue) };
}

const agreeWith =
  (schema: ZodSchema, validate: (json: unknown) => Validation<unknown>) => (json: unknown) => {
    expect(generatedAnswer(validate(json))).toEqual(zodAnswer(schema, json));
  };
const agree = agreeWith(runtimeConfigSchema, validateRuntimeConfig);

const generic = {
  type: 'generic-http-search-v1',
  baseUrl: 'https://context.example.com',
  tokenEnv: 'CONTEXT_API_TOKEN',
};
const platform = { type: 'mem0-platform-v3', apiKeyEnv: 'MEM0_API_KEY', appId: ' repository-memory ' };
const mem0 = {
  type: 'mem0',
  preset: 'aliyun-polardb-mysql-2026-08',
  endpoint: { origin: 'http://10.0.0.5:8080', basePath: '/mem0/', allowInsecureHttp: true },
  credentialEnv: 'MEM0_API_KEY',
  scope: { userId: 'repository-memory', agentId: 'qwen-code' },
};

const TABLE: [string, unknown][] = [
  ['v2 generic, defaults', { version: 2, autoRecall: { repositoryRoot: '/srv/repo' }, provider: generic }],
  [
    'v2 explicit timeouts',
    {
      version: 2,
      timeoutMs: 30000,
      autoRecall: { repositoryRoot: '/r', timeoutMs: 5000 },
      provider: generic,
    },
  ],
  ['v1 platform with write, trimmed appId', { version: 1, write: { enabled: true }, provider: platform }],
  ['v1 mem0 with insecure http and basePath', { version: 1, timeoutMs: 1, provider: mem0 }],
  [
    'v1 DataWorks BFF with write',
    {
      version: 1,
      write: { enabled: true },
      provider: { type: 'dataworks-bff-memory-v1', baseUrl: 'https://bff.example.com', tokenEnv: 'T' },
    },
  ],
  [
    'v2 DataWorks BFF',
    {
      version: 2,
      autoRecall: { repositoryRoot: '/srv/repo' },
      provider: { type: 'dataworks-bff-memory-v1', baseUrl: 'http://127.0.0.1:9', tokenEnv: 'T' },
    },
  ],
  [
    'DataWorks BFF with a scope (it has none: the BFF scopes by the token)',
    {
      version: 1,
      provider: {
        type: 'dataworks-bff-memory-v1',
        baseUrl: 'https://bff.example.com',
        tokenEnv: 'T',
        scope: { userId: 'u' },
      },
    },
  ],
  [
    'v1 mem0 without basePath',
    { version: 1, provider: { ...mem0, endpoint: { origin: 'https://m.example' } } },
  ],
  [
    'v1 mem0 allowInsecureHttp false on https',
    {
      version: 1,
      provider: { ...mem0, endpoint: { origin: 'https://m.example', allowInsecureHttp: false } },
    },
  ],
  [
    'http off loopback without the opt-in',
    { version: 1, provider: { ...mem0, endpoint: { origin: 'http://10.0.0.5:8080' } } },
  ],
  ['loopback http', { version: 1, provider: { ...generic, baseUrl: 'http://[::1]:8080' } }],
  ['unknown version', { version: 3, provider: generic }],
  ['version as a string', { version: '1', provider: generic }],
  ['no version', { provider: generic }],
  ['an array', [{ version: 1, provider: generic }]],
  ['null', null],
  ['a number', 1],
  ['extra root key', { version: 1, provider: generic, extra: 1 }],
  [
    '__proto__ key from JSON',
    JSON.parse(
      '{"version":1,"provider":{"type":"generic-http-search-v1","baseUrl":"https://a.example","tokenEnv":"T"},"__proto__":{"x":1}}',
    ),
  ],
  ['timeoutMs 0', { version: 1, timeoutMs: 0, provider: generic }],
  ['timeoutMs 30001', { version: 1, timeoutMs: 30001, provider: generic }],
  ['timeoutMs 2.5', { version: 1, timeoutMs: 2.5, provider: generic }],
  ['timeoutMs "5"', { version: 1, timeoutMs: '5', provider: generic }],
  ['timeoutMs null', { version: 1, timeoutMs: null, provider: generic }],
  [
    'autoRecall.timeoutMs 5001',
    { version: 2, autoRecall: { repositoryRoot: '/r', timeoutMs: 5001 }, provider: generic },
  ],
  ['autoRecall missing', { version: 2, provider: generic }],
  ['autoRecall extra key', { version: 2, autoRecall: { repositoryRoot: '/r', x: 1 }, provider: generic }],
  ['repositoryRoot a number', { version: 2, autoRecall: { repositoryRoot: 1 }, provider: generic }],
  [
    'write in v2',
    { version: 2, autoRecall: { repositoryRoot: '/r' }, provider: generic, write: { enabled: true } },
  ],
  ['write false', { version: 1, provider: platform, write: { enabled: false } }],
  ['write {}', { version: 1, provider: platform, write: {} }],
  ['write extra', { version: 1, provider: platform, write: { enabled: true, x: 1 } }],
  ['write null', { version: 1, provider: platform, write: null }],
  ['provider unknown type', { version: 1, provider: { ...generic, type: 'x' } }],
  ['provider without type', { version: 1, provider: { baseUrl: 'https://a.example', tokenEnv: 'T' } }],
  ['provider an array', { version: 1, provider: [generic] }],
  ['baseUrl with path', { version: 1, provider: { ...generic, baseUrl: 'https://a.example/x' } }],
  ['baseUrl trailing slash', { version: 1, provider: { ...generic, baseUrl: 'https://a.example/' } }],
  ['baseUrl bare ?', { version: 1, provider: { ...generic, baseUrl: 'https://a.example?' } }],
  ['baseUrl user info', { version: 1, provider: { ...generic, baseUrl: 'https://u@a.example' } }],
  ['baseUrl backslash', { version: 1, provider: { ...generic, baseUrl: 'https://a.example\\x' } }],
  ['baseUrl ftp', { version: 1, provider: { ...generic, baseUrl: 'ftp://a.example' } }],
  ['tokenEnv with a dash', { version: 1, provider: { ...generic, tokenEnv: 'A-B' } }],
  ['tokenEnv starting with a digit', { version: 1, provider: { ...generic, tokenEnv: '1A' } }],
  ['tokenEnv __proto__ (a valid name)', { version: 1, provider: { ...generic, tokenEnv: '__proto__' } }],
  ['appId blank', { version: 1, provider: { ...platform, appId: ' \t ' } }],
  ['appId 256 astral', { version: 1, provider: { ...platform, appId: '😀'.repeat(256) } }],
  ['appId 257 astral', { version: 1, provider: { ...platform, appId: '😀'.repeat(257) } }],
  ['appId with NBSP padding', { version: 1, provider: { ...platform, appId: '\u00a0x\u00a0' } }],
  ['preset toString', { version: 1, provider: { ...mem0, preset: 'toString' } }],
  ['preset unknown', { version: 1, provider: { ...mem0, preset: 'mem0-v9' } }],
  ['basePath relative', { version: 1, provider: { ...mem0, endpoint: { ...mem0.endpoint, basePath: 'x' } } }],
  ['basePath ..', { version: 1, provider: { ...mem0, endpoint: { ...mem0.endpoint, basePath: '/a/../b' } } }],
  ['basePath null', { version: 1, provider: { ...mem0, endpoint: { ...mem0.endpoint, basePath: null } } }],
  [
    'allowInsecureHttp "true"',
    { version: 1, provider: { ...mem0, endpoint: { ...mem0.endpoint, allowInsecureHttp: 'true' } } },
  ],
  ['endpoint extra', { version: 1, provider: { ...mem0, endpoint: { ...mem0.endpoint, x: 1 } } }],
  [
    'endpoint origin with path',
    { version: 1, provider: { ...mem0, endpoint: { origin: 'https://m.example/v1' } } },
  ],
  ['scope extra key', { version: 1, provider: { ...mem0, scope: { userId: 'u', runId: 'r' } } }],
  ['scope empty (rules are checked later)', { version: 1, provider: { ...mem0, scope: {} } }],
  ['scope value a number', { version: 1, provider: { ...mem0, scope: { userId: 5 } } }],
  ['scope missing', { version: 1, provider: { ...mem0, scope: undefined } }],
];

describe('the generated validators on disk', () => {
  it.each(VALIDATORS.map((target) => [target.file, target] as const))(
    '%s equals a fresh generation from its zod schema (run `npm run schemas` after changing it)',
    (file, target) => {
      expect(readFileSync(join(REPOSITORY_ROOT, file), 'utf8')).toBe(generateValidator(target));
    },
  );

  it.each<[string, unknown, string]>([
    [
      'a refinement not exported from a rules module',
      z.strictObject({ a: z.string().check(z.refine((s) => s !== '')) }),
      'is not exported from any of src/config/rules.ts',
    ],
    ['a non-strict object', z.object({ a: z.string() }), 'only strict objects'],
    [
      'a type it does not know',
      z.strictObject({ a: z.tuple([z.string()]) }),
      'zod type tuple is not supported',
    ],
    ['a check it does not know', z.strictObject({ a: z.string().check(z.maxLength(3)) }), 'check max_length'],
    [
      'a record whose enum keys must all be present',
      z.record(z.enum(['a', 'b']), z.string()),
      'a record keyed by a enum (not partial)',
    ],
    [
      'an aborting refinement',
      z.string().check(z.refine(() => true, { abort: true })),
      'an aborting or conditional custom',
    ],
  ])('refuses to generate from a schema with %s', (_case, schema, message) => {
    expect(() => generateValidator(VALIDATORS[0]!, schema)).toThrow(message);
  });
});

describe('the runtime config validator agrees with the zod schema', () => {
  it.each(TABLE)('%s', (_name, json) => agree(json));

  it('reports what zod reports, in order: every issue, not only the first', () => {
    const json = { version: 1, timeoutMs: 2.5, provider: { ...generic, tokenEnv: '1A', x: 1 }, y: 2 };
    expect(generatedAnswer(validateRuntimeConfig(json))).toEqual({
      ok: false,
      issues: [
        { code: 'invalid_type', path: ['timeoutMs'], expected: 'int' },
        { code: 'invalid_format', path: ['provider', 'tokenEnv'] },
        { code: 'unrecognized_keys', path: ['provider'], keys: ['x'] },
        { code: 'unrecognized_keys', path: [], keys: ['y'] },
      ],
    });
    agree(json);
  });

  it('on random JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), agree), { numRuns: 500 });
  });

  // Near-valid configs: each field mostly valid, sometimes one of the edge cases around it.
  const mostly = <T>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<unknown>) =>
    fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: edge, weight: 1 });
  const str = mostly(
    fc.constantFrom('A_B', 'CONTEXT_API_TOKEN', 'x', ' padded ', '😀'),
    fc.oneof(
      fc.constantFrom('', ' ', '\u00a0', '1A', 'a-b', '__proto__', 'toString'),
      fc.string({ maxLength: 8 }),
    ),
  );
  const name = mostly(
    fc.constantFrom('A_B', 'CONTEXT_API_TOKEN', '_x9'),
    fc.constantFrom('', ' ', '1A', 'a-b', 'A B', 'ü', '__proto__', 'toString'),
  );
  const int = mostly(
    fc.constantFrom(1, 1500, 5000, 8000, 30000),
    fc.oneof(fc.constantFrom(0, 5001, 30001, -1, 2.5), fc.integer()),
  );
  const origin = mostly(
    fc.constantFrom(
      'https://a.example',
      'https://a.example/',
      'http://127.0.0.1:1',
      'http://localhost',
      'http://[::1]:80',
    ),
    fc.constantFrom(
      'http://10.0.0.1',
      'https://a.example/p',
      'https://a.example?q',
      'https://u:p@a.example',
      'ftp://a.example',
      'https://a.example#f',
      ' https://a.example',
      'not a url',
    ),
  );
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const extra = fc.option(fc.record({ extra: fc.constant(1) }), { nil: undefined, freq: 10 });
  const scope = fc.record(
    { userId: maybe(str), agentId: maybe(str), appId: maybe(str) },
    { requiredKeys: [] },
  );
  const providerArb = fc.oneof(
    fc.record({ type: fc.constant('generic-http-search-v1'), baseUrl: origin, tokenEnv: name }),
    fc.record({ type: fc.constant('mem0-platform-v3'), apiKeyEnv: name, appId: str }),
    fc.record({ type: fc.constant('dataworks-bff-memory-v1'), baseUrl: origin, tokenEnv: name }),
    fc.record({
      type: fc.constant('mem0'),
      preset: mostly(fc.constantFrom(...MEM0_PRESET_NAMES), str),
      endpoint: fc.record(
        {
          origin,
          basePath: fc.oneof(
            fc.constantFrom('', '/', '/a', '/a/', 'a', '/a//b', '/a/./b', '/%20', '/a b'),
            str,
          ),
          allowInsecureHttp: mostly(fc.boolean(), fc.constant('yes')),
        },
        { requiredKeys: ['origin'] },
      ),
      credentialEnv: name,
      scope,
    }),
  );
  const configArb = fc
    .tuple(
      mostly(fc.constantFrom(1, 2), fc.constantFrom(3, '1')),
      maybe(int),
      providerArb,
      maybe(mostly(fc.constant({ enabled: true }), fc.constantFrom({ enabled: false }, {}))),
      fc.record(
        { repositoryRoot: mostly(fc.constant('/srv/repo'), str), timeoutMs: maybe(int) },
        { requiredKeys: ['repositoryRoot'] },
      ),
      extra,
    )
    .map(([version, timeoutMs, provider, write, autoRecall, more]) => {
      const base: Record<string, unknown> = { version, provider, ...more };
      if (timeoutMs !== undefined) base['timeoutMs'] = timeoutMs;
      if (version === 2) base['autoRecall'] = autoRecall;
      if (write !== undefined && (version === 1 || more !== undefined)) base['write'] = write;
      return JSON.parse(JSON.stringify(base)) as unknown;
    });

  it('on random near-valid configs', () => {
    let accepted = 0;
    fc.assert(
      fc.property(configArb, (json) => {
        agree(json);
        if (runtimeConfigSchema.safeParse(json).success) accepted++;
      }),
      { numRuns: 3000 },
    );
    // The generator must reach both outcomes, or the comparison proves little.
    expect(accepted).toBeGreaterThan(100);
  });
});

const manifest = {
  toolkitVersion: '0.1.0',
  deploymentSha256: 'a'.repeat(64),
  adminUid: 0,
  files: { 'manifest.json': { sha256: 'b'.repeat(64), mode: '0644' } },
  profiles: { 'on-demand': { state: 'active', changedAt: '2026-12-02T00:00:00.000Z' } },
};

/** An openclaw-recall launch.json as render writes it. */
const openclawPlan = {
  version: 1,
  profile: 'openclaw-recall',
  platform: 'posix',
  installDir: '/opt/qwen-managed',
  installId: '0123456789abcdef',
  node: '/opt/node-24/bin/node',
  cli: '/opt/openclaw/node_modules/openclaw/openclaw.mjs',
  openclawVersion: '2026.9.6',
  argv: ['agent', '--local', '--agent', 'main', '--message-file', '/dev/stdin'],
  cwd: '/srv/repos/app',
  environment: {
    PATH: '/usr/bin:/bin',
    inherit: ['TERM'],
    set: {},
    files: { OPENCLAW_CONFIG_PATH: '/opt/qwen-managed/profiles/openclaw-recall/openclaw.json' },
  },
  credentials: { CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' } },
  externalContext: { credentials: ['CONTEXT_API_TOKEN'] },
};

const launcherFiles = [
  { name: 'launch.json', zod: launchPlanSchema, validate: validateLaunchPlan, valid: samplePlan() },
  {
    name: 'openclaw-recall launch.json',
    zod: openclawLaunchPlanSchema,
    validate: validateOpenclawLaunchPlan,
    valid: openclawPlan,
  },
  { name: 'manifest.json', zod: installManifestSchema, validate: validateInstallManifest, valid: manifest },
] as const;

// Values a mutation plants: each JSON type, the boundaries the schemas draw, and the enums' members.
const planted = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    1,
    0,
    -1,
    1.5,
    2 ** 53,
    'on-demand',
    'openclaw-recall',
    'rolled-back',
    'posix',
    'untrusted',
    true,
  ),
  fc.constantFrom('0644', '0999', 'a'.repeat(64), '0123456789abcdef', { file: '/f' }, { inherit: true }),
);
const keys = fc.constantFrom('version', 'extra', '__proto__', 'write', 'file', 'inherit', 'mode', 'sha256');

describe.each(launcherFiles)('$name: the generated validator agrees with the zod schema', (file) => {
  const agreeHere = agreeWith(file.zod, file.validate as (json: unknown) => Validation<unknown>);

  it('accepts the valid document as it is', () => {
    expect(file.validate(file.valid)).toEqual({ ok: true, value: file.valid });
  });

  it('on 3000 mutated documents, reaching both outcomes', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.array(mutationArb(planted, keys), { minLength: 1, maxLength: 3 }), (mutations) => {
        const doc = mutate(file.valid, mutations);
        agreeHere(doc);
        if (file.zod.safeParse(doc).success) accepted++;
        else refused++;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});

describe('launch.json and manifest.json issues name the place and the rule', () => {
  it.each([
    {
      what: 'a wrong type and an unknown key',
      doc: { ...samplePlan(), node: 7, extra: true },
      issues: [
        { code: 'invalid_type', path: ['node'], expected: 'string' },
        { code: 'unrecognized_keys', path: [], keys: ['extra'] },
      ],
    },
    {
      what: 'a missing key',
      doc: (({ cwd: _cwd, ...rest }) => rest)(samplePlan()),
      issues: [{ code: 'invalid_type', path: ['cwd'], expected: 'string' }],
    },
    {
      what: 'a value outside the enum and a bad pattern',
      doc: { ...samplePlan(), profile: 'yolo', installId: 'XYZ' },
      issues: [
        { code: 'invalid_value', path: ['profile'] },
        { code: 'invalid_format', path: ['installId'] },
      ],
    },
    {
      what: 'a credential source matching neither form',
      doc: { ...samplePlan(), credentials: { T: { file: '/f', inherit: true } } },
      issues: [{ code: 'invalid_union', path: ['credentials', 'T'] }],
    },
    {
      what: 'a credential source with an extra key (the one form it is closest to names it)',
      doc: { ...samplePlan(), credentials: { T: { file: '/f', x: 1 } } },
      issues: [{ code: 'unrecognized_keys', path: ['credentials', 'T'], keys: ['x'] }],
    },
  ])('launch.json: $what', ({ doc, issues }) => {
    expect(generatedAnswer(validateLaunchPlan(doc))).toEqual({ ok: false, issues });
    agreeWith(launchPlanSchema, validateLaunchPlan as (json: unknown) => Validation<unknown>)(doc);
  });

  it.each([
    {
      what: 'a profile name outside the enum',
      edit: { profiles: { yolo: { state: 'active', changedAt: 'x' } } },
      issues: [{ code: 'unrecognized_keys', path: ['profiles'], keys: ['yolo'] }],
    },
    { what: 'a negative uid', edit: { adminUid: -1 }, issues: [{ code: 'too_small', path: ['adminUid'] }] },
    {
      what: 'a fractional uid',
      edit: { adminUid: 0.5 },
      issues: [{ code: 'invalid_type', path: ['adminUid'], expected: 'int' }],
    },
  ])('manifest.json: $what is refused', ({ edit, issues }) => {
    const doc = { ...manifest, ...edit };
    expect(generatedAnswer(validateInstallManifest(doc))).toEqual({ ok: false, issues });
    agreeWith(installManifestSchema, validateInstallManifest as (json: unknown) => Validation<unknown>)(doc);
  });

  it('drops a __proto__ record key as zod drops it, and never makes it a prototype', () => {
    const doc = {
      ...samplePlan(),
      credentials: JSON.parse('{"__proto__": {"inherit": true}, "T": {"inherit": true}}'),
    };
    const checked = validateLaunchPlan(doc);
    expect(checked).toEqual({ ok: true, value: { ...samplePlan(), credentials: { T: { inherit: true } } } });
    expect(checked.ok && Object.getPrototypeOf(checked.value.credentials)).toBe(Object.prototype);
    agreeWith(launchPlanSchema, validateLaunchPlan as (json: unknown) => Validation<unknown>)(doc);
  });
});
