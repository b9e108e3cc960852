import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, type ConfigurationErrorCode } from '../../../src/base/errors.js';
import { loadRuntimeConfig } from '../../../src/config/load.js';
import { PROVIDER_CONFIG_VARIABLE } from '../../../src/contracts/names.js';

const CANARY = 'canary-credential-Zx81Qm';
let dir: string;
let repo: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-config-'));
  repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
  fs.symlinkSync(repo, path.join(dir, 'repo-link'));
  fs.writeFileSync(path.join(dir, 'plain-file'), 'x');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function writeConfig(content: unknown): string {
  const file = path.join(dir, `config-${counter++}.json`);
  const data = typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content);
  fs.writeFileSync(file, data);
  return file;
}

const generic = {
  type: 'generic-http-search-v1',
  baseUrl: 'https://context.example.com',
  tokenEnv: 'CONTEXT_API_TOKEN',
};
const platform = { type: 'mem0-platform-v3', apiKeyEnv: 'MEM0_API_KEY', appId: 'repository-memory' };
const mem0 = (preset: string, scope: Record<string, string>, endpoint: Record<string, unknown> = {}) => ({
  type: 'mem0',
  preset,
  endpoint: { origin: 'https://memory.example.com', ...endpoint },
  credentialEnv: 'MEM0_API_KEY',
  scope,
});
const env = (file: string, extra: Record<string, string> = {}) => ({
  [PROVIDER_CONFIG_VARIABLE]: file,
  CONTEXT_API_TOKEN: CANARY,
  MEM0_API_KEY: CANARY,
  ...extra,
});

function failure(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    const e = error as ConfigurationError;
    // No message ever carries a credential, its variable name, or a value from the file.
    expect(e.message).not.toContain(CANARY);
    expect(e.message).not.toMatch(/CONTEXT_API_TOKEN|MEM0_API_KEY|example\.com|\/tmp/);
    expect(JSON.stringify(e)).not.toContain(CANARY);
    return e;
  }
  throw new Error('expected a ConfigurationError');
}

describe('version 1', () => {
  it('loads the upstream examples unchanged, with defaults filled in', () => {
    const file = writeConfig({ version: 1, timeoutMs: 5000, write: { enabled: true }, provider: platform });
    expect(loadRuntimeConfig(env(file), 1)).toEqual({
      config: { version: 1, timeoutMs: 5000, write: { enabled: true }, provider: platform },
      credential: CANARY,
    });
    const polar = mem0(
      'aliyun-polardb-mysql-2026-08',
      { userId: 'repository-memory', agentId: 'qwen-code' },
      { basePath: '' },
    );
    const file2 = writeConfig({ version: 1, provider: polar });
    expect(loadRuntimeConfig(env(file2), 1).config).toEqual({ version: 1, timeoutMs: 5000, provider: polar });
  });

  it('trims scope strings and defaults basePath to ""', () => {
    const file = writeConfig({
      version: 1,
      provider: mem0('mem0-oss-rest-2026-08', { userId: '  alice  ' }),
    });
    const { config } = loadRuntimeConfig(env(file), 1);
    expect(config.provider).toEqual(mem0('mem0-oss-rest-2026-08', { userId: 'alice' }, { basePath: '' }));
  });
});

describe('origins and scope lengths as upstream accepts them', () => {
  // Judged on the parsed URL: an empty userinfo or a bare ? / # carries nothing (the file keeps
  // its text; requests go to the URL's origin, see test/unit/parity).
  it.each([
    'https://@context.example.com',
    'https://:@context.example.com',
    'https://context.example.com?',
    'https://context.example.com#',
    'https://context.example.com/?',
    'https://context.example.com/#',
  ])('loads baseUrl %j', (baseUrl) => {
    const file = writeConfig({ version: 1, provider: { ...generic, baseUrl } });
    expect(loadRuntimeConfig(env(file), 1).config.provider).toEqual({ ...generic, baseUrl });
  });

  it.each([
    ['256 ASCII characters', 'a'.repeat(256), true],
    ['128 emoji (256 UTF-16 units)', '😀'.repeat(128), true],
    ['257 ASCII characters', 'a'.repeat(257), false],
    ['129 emoji (258 UTF-16 units)', '😀'.repeat(129), false],
    ['256 characters plus padding (trimmed first)', ` ${'a'.repeat(256)} `, true],
  ])('appId of %s: loads = %s', (_name, appId, loads) => {
    const file = writeConfig({ version: 1, provider: { ...platform, appId } });
    const load = () => loadRuntimeConfig(env(file), 1);
    if (loads) expect(load().config.provider).toEqual({ ...platform, appId: appId.trim() });
    else expect(failure(load).code).toBe('schema-invalid');
  });
});

describe('version 2', () => {
  it('resolves the repository root with realpath', () => {
    const file = writeConfig({
      version: 2,
      autoRecall: { repositoryRoot: path.join(dir, 'repo-link') },
      provider: generic,
    });
    expect(loadRuntimeConfig(env(file), 2)).toEqual({
      config: {
        version: 2,
        timeoutMs: 5000,
        autoRecall: { repositoryRoot: fs.realpathSync(repo), timeoutMs: 1500 },
        provider: generic,
      },
      credential: CANARY,
    });
  });
});

type Row = [
  name: string,
  code: ConfigurationErrorCode,
  version: 1 | 2,
  setup: () => Record<string, string | undefined>,
];
const v1 = (provider: unknown, extra: Record<string, unknown> = {}) =>
  env(writeConfig({ version: 1, provider, ...extra }));
const v2 = (autoRecall: Record<string, unknown>, provider: unknown = generic) =>
  env(writeConfig({ version: 2, autoRecall, provider }));

const rows: Row[] = [
  ['variable unset', 'path-missing', 1, () => ({ CONTEXT_API_TOKEN: CANARY })],
  ['variable empty', 'path-missing', 1, () => ({ [PROVIDER_CONFIG_VARIABLE]: '' })],
  [
    'variable inherited from the prototype only',
    'path-missing',
    1,
    () => Object.create({ [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic }) }),
  ],
  ['relative path', 'path-not-absolute', 1, () => ({ [PROVIDER_CONFIG_VARIABLE]: 'config.json' })],
  ['missing file', 'file-unreadable', 1, () => ({ [PROVIDER_CONFIG_VARIABLE]: path.join(dir, 'nope.json') })],
  ['a directory', 'file-not-regular', 1, () => ({ [PROVIDER_CONFIG_VARIABLE]: dir })],
  ['over 64 KiB', 'file-too-large', 1, () => env(writeConfig(' '.repeat(65_537)))],
  ['invalid UTF-8', 'file-not-utf8', 1, () => env(writeConfig(Buffer.from([0x7b, 0xff, 0x7d])))],
  ['not JSON', 'file-not-json', 1, () => env(writeConfig('{version: 1'))],
  ['unknown top-level key', 'schema-invalid', 1, () => v1(generic, { extra: 1 })],
  ['unknown provider key', 'schema-invalid', 1, () => v1({ ...generic, extra: 1 })],
  ['unknown provider type', 'schema-invalid', 1, () => v1({ ...generic, type: 'other' })],
  ['timeoutMs 0', 'schema-invalid', 1, () => v1(generic, { timeoutMs: 0 })],
  ['timeoutMs 30001', 'schema-invalid', 1, () => v1(generic, { timeoutMs: 30_001 })],
  ['timeoutMs 1.5', 'schema-invalid', 1, () => v1(generic, { timeoutMs: 1.5 })],
  ['baseUrl with a path', 'schema-invalid', 1, () => v1({ ...generic, baseUrl: 'https://a.example/v1' })],
  ['baseUrl with a query', 'schema-invalid', 1, () => v1({ ...generic, baseUrl: 'https://a.example/?q=1' })],
  [
    'baseUrl with credentials',
    'schema-invalid',
    1,
    () => v1({ ...generic, baseUrl: 'https://u:p@a.example' }),
  ],
  [
    'baseUrl plain http off loopback',
    'schema-invalid',
    1,
    () => v1({ ...generic, baseUrl: 'http://a.example' }),
  ],
  ['baseUrl with a tab', 'schema-invalid', 1, () => v1({ ...generic, baseUrl: 'https://a.ex\tample' })],
  ['tokenEnv not a variable name', 'schema-invalid', 1, () => v1({ ...generic, tokenEnv: 'A-B' })],
  ['appId blank after trim', 'schema-invalid', 1, () => v1({ ...platform, appId: '   ' })],
  // 1–256 UTF-16 units, as upstream counts: 129 emoji are 258 units.
  [
    'appId 129 emoji (258 UTF-16 units)',
    'schema-invalid',
    1,
    () => v1({ ...platform, appId: '😀'.repeat(129) }),
  ],
  ['unknown preset', 'schema-invalid', 1, () => v1(mem0('mem0-v9', { userId: 'u' }))],
  [
    'basePath without leading slash',
    'schema-invalid',
    1,
    () => v1(mem0('mem0-v2', { userId: 'u' }, { basePath: 'api' })),
  ],
  [
    'basePath with ..',
    'schema-invalid',
    1,
    () => v1(mem0('mem0-v2', { userId: 'u' }, { basePath: '/a/../b' })),
  ],
  ['basePath with %', 'schema-invalid', 1, () => v1(mem0('mem0-v2', { userId: 'u' }, { basePath: '/a%2e' }))],
  [
    'basePath with //',
    'schema-invalid',
    1,
    () => v1(mem0('mem0-v2', { userId: 'u' }, { basePath: '/a//b' })),
  ],
  [
    'mem0 http off loopback',
    'schema-invalid',
    1,
    () => v1(mem0('mem0-v2', { userId: 'u' }, { origin: 'http://10.0.0.5:8080' })),
  ],
  ['write {"enabled": false}', 'schema-invalid', 1, () => v1(platform, { write: { enabled: false } })],
  ['write {}', 'schema-invalid', 1, () => v1(platform, { write: {} })],
  ['write with extra key', 'schema-invalid', 1, () => v1(platform, { write: { enabled: true, x: 1 } })],
  [
    'write in version 2',
    'schema-invalid',
    2,
    () =>
      env(
        writeConfig({
          version: 2,
          autoRecall: { repositoryRoot: repo },
          provider: platform,
          write: { enabled: true },
        }),
      ),
  ],
  ['platform preset without appId', 'scope-invalid', 1, () => v1(mem0('mem0-platform-v3', {}))],
  ['platform preset with userId', 'scope-invalid', 1, () => v1(mem0('mem0-v3', { appId: 'a', userId: 'u' }))],
  [
    'oss preset with appId',
    'scope-invalid',
    1,
    () => v1(mem0('mem0-oss-2026-08', { userId: 'u', appId: 'a' })),
  ],
  [
    'polardb without userId',
    'scope-invalid',
    1,
    () => v1(mem0('aliyun-polardb-mysql-2026-08', { agentId: 'g' })),
  ],
  ['mem0-v2 with appId', 'scope-invalid', 1, () => v1(mem0('mem0-v2', { userId: 'u', appId: 'a' }))],
  [
    'generic provider with write (before credentials)',
    'write-unsupported',
    1,
    () => ({
      [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic, write: { enabled: true } }),
    }),
  ],
  [
    'credential unset',
    'credential-missing',
    1,
    () => ({ [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic }) }),
  ],
  [
    'credential empty',
    'credential-missing',
    1,
    () => ({
      [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic }),
      CONTEXT_API_TOKEN: '',
    }),
  ],
  [
    'credential only on the prototype',
    'credential-missing',
    1,
    () =>
      Object.assign(Object.create({ CONTEXT_API_TOKEN: CANARY }), {
        [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic }),
      }),
  ],
  [
    'credential named __proto__ is never found',
    'credential-missing',
    1,
    () => ({
      [PROVIDER_CONFIG_VARIABLE]: writeConfig({
        version: 1,
        provider: { ...generic, tokenEnv: '__proto__' },
      }),
    }),
  ],
  [
    'credential named toString is never found',
    'credential-missing',
    1,
    () => ({
      [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: { ...generic, tokenEnv: 'toString' } }),
    }),
  ],
  [
    'credential is an unexpanded placeholder',
    'credential-placeholder',
    1,
    () => ({
      [PROVIDER_CONFIG_VARIABLE]: writeConfig({ version: 1, provider: generic }),
      CONTEXT_API_TOKEN: '${CONTEXT_API_TOKEN}',
    }),
  ],
  [
    'version 2 file where version 1 is required',
    'version-unsupported',
    1,
    () => v2({ repositoryRoot: repo }),
  ],
  ['version 1 file where version 2 is required', 'version-unsupported', 2, () => v1(generic)],
  ['autoRecall.timeoutMs 5001', 'schema-invalid', 2, () => v2({ repositoryRoot: repo, timeoutMs: 5001 })],
  ['autoRecall unknown key', 'schema-invalid', 2, () => v2({ repositoryRoot: repo, extra: true })],
  ['repository root relative', 'repository-root-invalid', 2, () => v2({ repositoryRoot: 'repo' })],
  [
    'repository root missing',
    'repository-root-invalid',
    2,
    () => v2({ repositoryRoot: path.join(dir, 'missing') }),
  ],
  [
    'repository root is a file',
    'repository-root-invalid',
    2,
    () => v2({ repositoryRoot: path.join(dir, 'plain-file') }),
  ],
  ['repository root is /', 'repository-root-invalid', 2, () => v2({ repositoryRoot: '/' })],
  [
    'repository root resolves to /',
    'repository-root-invalid',
    2,
    () => v2({ repositoryRoot: path.join(repo, '..', '..', '..', '..', '..', '..', '..', '..', '..') }),
  ],
];

describe('refusals', () => {
  it.each(rows)('%s → %s', (_name, code, version, setup) => {
    const e = failure(() => loadRuntimeConfig(setup(), version as 1));
    expect(e.code).toBe(code);
  });

  it('credentials are checked only after scope and write rules', () => {
    // Both wrong at once: the scope error wins, so no credential lookup ever happened.
    const e = failure(() =>
      loadRuntimeConfig(
        {
          [PROVIDER_CONFIG_VARIABLE]: writeConfig({
            version: 1,
            provider: mem0('mem0-v2', { appId: 'a', userId: 'u' }),
          }),
        },
        1,
      ),
    );
    expect(e.code).toBe('scope-invalid');
  });

  it('keeps the key path of a schema failure (keys only)', () => {
    const e = failure(() => loadRuntimeConfig(v1({ ...generic, baseUrl: 'https://x.example/path' }), 1));
    expect(e.keyPath).toEqual(['provider', 'baseUrl']);
  });
});
