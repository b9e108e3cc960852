// The hook's compiled parser, generated from the zod schema (scripts/generate-config-parser.ts), must
// accept exactly what the schema accepts, with the same output and the same key path for the first
// problem (what ConfigurationError carries): zod (schema.ts) is the definition, this its fast form.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { CONFIG_PARSER_FILE, generateConfigParser } from '../../../scripts/generate-config-parser.js';
import { REPOSITORY_ROOT } from '../../../scripts/generate-schemas.js';
import { compiledConfigParser } from '../../../src/config/compiled-parser.js';
import { zodConfigParser } from '../../../src/config/load.js';
import { MEM0_PRESET_NAMES } from '../../../src/contracts/mem0-presets.js';

function agree(json: unknown): void {
  const zod = zodConfigParser(json);
  const compiled = compiledConfigParser(json);
  const shown = (r: typeof zod) =>
    r.ok ? { ok: true, config: r.config } : { ok: false, keyPath: r.keyPath };
  expect(shown(compiled)).toEqual(shown(zod));
}

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

describe('the generated parser on disk', () => {
  it('equals a fresh generation from the zod schema (run `npm run schemas` after changing schema.ts)', () => {
    expect(readFileSync(join(REPOSITORY_ROOT, CONFIG_PARSER_FILE), 'utf8')).toBe(generateConfigParser());
  });

  it.each<[string, unknown, string]>([
    [
      'a refinement not exported from rules.ts',
      z.strictObject({ a: z.string().check(z.refine((s) => s !== '')) }),
      'not exported from src/config/rules.ts',
    ],
    ['a non-strict object', z.object({ a: z.string() }), 'only strict objects'],
    [
      'a type it does not know',
      z.strictObject({ a: z.array(z.string()) }),
      'zod type array is not supported',
    ],
  ])('refuses to generate from a schema with %s', (_case, schema, message) => {
    expect(() => generateConfigParser(schema)).toThrow(message);
  });
});

describe('the compiled parser agrees with the zod schema', () => {
  it.each(TABLE)('%s', (_name, json) => agree(json));

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
        if (zodConfigParser(json).ok) accepted++;
      }),
      { numRuns: 3000 },
    );
    // The generator must reach both outcomes, or the comparison proves little.
    expect(accepted).toBeGreaterThan(100);
  });
});
