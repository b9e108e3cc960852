// Loads QWEN_EXTERNAL_CONTEXT_CONFIG. Order (docs/contracts.md, "Runtime provider config"): path → file → schema → version →
// Mem0 scope → write compatibility → credential → (v2) repository root. Every failure is a
// ConfigurationError with a fixed message; nothing else escapes. The schema step is a parameter:
// load.ts passes the zod schema, the auto-recall hook the validator generated from it
// (src/startup/validators/runtime-config.ts).
// Named imports, not namespaces: a bundled namespace import copies every export at start-up.
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, parse } from 'node:path';
import { type Environment, readOwnEnv } from '../base/environment.js';
import { ConfigurationError } from '../base/errors.js';
import { MAX_CONFIG_BYTES } from '../base/limits.js';
import type { Validation } from '../base/validation.js';
import { MEM0_PRESETS, scopeViolation } from '../contracts/mem0-presets.js';
import { PROVIDER_CONFIG_VARIABLE } from '../contracts/names.js';
import { decodeUtf8 } from '../text/utf8.js';
import { CREDENTIAL_NAME, credentialVariable } from './names.js';
import type { ProviderConfig, RuntimeConfig, RuntimeConfigV1, RuntimeConfigV2 } from './schema.js';

/** The schema step: the validated config with defaults filled in, or zod's issues (in order). */
export type ConfigParser = (json: unknown) => Validation<RuntimeConfig>;

/** The file-system calls the loader needs; injectable for tests. */
export interface ConfigFs {
  openSync: typeof openSync;
  fstatSync: typeof fstatSync;
  readSync: typeof readSync;
  closeSync: typeof closeSync;
  realpathSync(path: string): string;
  statSync(path: string): { isDirectory(): boolean };
}

/** One realpath(3) call instead of an lstat per path component (realpathSync's JS walk). */
const NODE_FS: ConfigFs = {
  openSync,
  fstatSync,
  readSync,
  closeSync,
  realpathSync: realpathSync.native,
  statSync,
};

export interface LoadedConfig<C> {
  config: C;
  /** The provider credential's value. Never log it, never put it in a message. */
  credential: string;
}

export function loadRuntimeConfigWith(
  parser: ConfigParser,
  env: Environment,
  version: 1,
  fs?: ConfigFs,
): LoadedConfig<RuntimeConfigV1>;
export function loadRuntimeConfigWith(
  parser: ConfigParser,
  env: Environment,
  version: 2,
  fs?: ConfigFs,
): LoadedConfig<RuntimeConfigV2>;
export function loadRuntimeConfigWith(
  parser: ConfigParser,
  env: Environment,
  version: 1 | 2,
  fs: ConfigFs = NODE_FS,
): LoadedConfig<RuntimeConfigV1 | RuntimeConfigV2> {
  try {
    const config = parseRuntimeConfigWith(parser, readConfigText(env, fs), version);
    const credential = resolveCredential(env, config.provider);
    if (config.version === 2) {
      const repositoryRoot = resolveRepositoryRoot(config.autoRecall.repositoryRoot, fs);
      return { config: { ...config, autoRecall: { ...config.autoRecall, repositoryRoot } }, credential };
    }
    return { config, credential };
  } catch (error) {
    // Only our own fixed-message error may leave; anything unexpected becomes a generic one.
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError('file-unreadable');
  }
}

function readConfigText(env: Environment, fs: ConfigFs): string {
  const file = readOwnEnv(env, PROVIDER_CONFIG_VARIABLE);
  if (file === undefined || file === '') throw new ConfigurationError('path-missing');
  if (!isAbsolute(file)) throw new ConfigurationError('path-not-absolute');
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    throw new ConfigurationError('file-unreadable');
  }
  try {
    // fstat on the open descriptor: the file checked is the file read.
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ConfigurationError('file-not-regular');
    if (stat.size > MAX_CONFIG_BYTES) throw new ConfigurationError('file-too-large');
    // Read one byte past the cap so a file that grew after fstat is still refused.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > MAX_CONFIG_BYTES) throw new ConfigurationError('file-too-large');
    }
    const text = decodeUtf8(buffer.subarray(0, length));
    if (text === undefined) throw new ConfigurationError('file-not-utf8');
    return text;
  } finally {
    fs.closeSync(fd);
  }
}

/** Schema, version, Mem0 scope and write rules: everything decidable before a credential is read. */
export function parseRuntimeConfigWith(
  parser: ConfigParser,
  text: string,
  version: 1 | 2,
): RuntimeConfigV1 | RuntimeConfigV2 {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigurationError('file-not-json');
  }
  const parsed = parser(json);
  // The first issue's key path: where zod (and the generated validator) first found the file wrong.
  if (!parsed.ok) throw new ConfigurationError('schema-invalid', [...(parsed.issues[0]?.path ?? [])]);
  const config = parsed.value;
  if (config.version !== version) throw new ConfigurationError('version-unsupported');
  checkScope(config.provider);
  // Write compatibility is decided before any credential is read.
  if (config.version === 1 && config.write !== undefined && !providerCanWrite(config.provider)) {
    throw new ConfigurationError('write-unsupported', ['write']);
  }
  return config;
}

export function providerCanWrite(provider: ProviderConfig): boolean {
  if (provider.type === 'mem0-platform-v3') return true;
  if (provider.type === 'mem0') return MEM0_PRESETS[provider.preset].write !== undefined;
  // The BFF's direct-import write (POST /dmai/mem0MemoriesAdd).
  return provider.type === 'dataworks-bff-memory-v1';
}

function checkScope(provider: ProviderConfig): void {
  if (provider.type !== 'mem0') return;
  const key = scopeViolation(MEM0_PRESETS[provider.preset], provider.scope);
  if (key !== undefined) throw new ConfigurationError('scope-invalid', ['provider', 'scope', key]);
}

/** Reads the provider's credential as an own environment property; refuses an unexpanded `${NAME}`. */
export function resolveCredential(env: Environment, provider: ProviderConfig): string {
  const name = credentialVariable(provider);
  // The schema already guarantees this; checked again because the name indexes the environment.
  if (!CREDENTIAL_NAME.test(name)) throw new ConfigurationError('schema-invalid');
  const value = readOwnEnv(env, name);
  if (value === undefined || value === '') throw new ConfigurationError('credential-missing');
  if (value === '${' + name + '}') throw new ConfigurationError('credential-placeholder');
  return value;
}

/** realpath, a directory, and never a filesystem root (`/`, `C:\`): a mis-routing guard. */
export function resolveRepositoryRoot(
  root: string,
  fs: Pick<ConfigFs, 'realpathSync' | 'statSync'> = NODE_FS,
): string {
  if (!isAbsolute(root)) throw new ConfigurationError('repository-root-invalid');
  let real: string;
  try {
    real = fs.realpathSync(root);
    if (!fs.statSync(real).isDirectory()) throw new ConfigurationError('repository-root-invalid');
  } catch {
    throw new ConfigurationError('repository-root-invalid');
  }
  if (parse(real).root === real) throw new ConfigurationError('repository-root-invalid');
  return real;
}
