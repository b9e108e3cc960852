// Pure environment-name rules shared by render, verify, plan and the launcher.
import type { Platform } from '../base/platform.js';
import type { EnvironmentPolicy } from './policies.js';

/** Windows environment names are case-insensitive (`Path` is `PATH`); POSIX names are not. */
export function sameEnvName(a: string, b: string, platform: Platform): boolean {
  return platform === 'windows' ? a.toUpperCase() === b.toUpperCase() : a === b;
}

/** Why a name may never be inherited or set by the administrator, or undefined when it may. */
export function forbiddenReason(
  name: string,
  policy: EnvironmentPolicy,
  platform: Platform,
): string | undefined {
  const up = (s: string) => (platform === 'windows' ? s.toUpperCase() : s);
  const key = up(name);
  for (const forbidden of policy.forbidden.names) {
    if (up(forbidden) === key) return policy.forbidden.why[forbidden] ?? 'managed by the launcher';
  }
  for (const prefix of policy.forbidden.prefixes) {
    if (key.startsWith(up(prefix))) return policy.forbidden.why[prefix] ?? 'managed by the launcher';
  }
  // Forced and pinned names belong to the launcher: an administrator cannot set them either.
  for (const name2 of [...Object.keys(policy.forced), ...policy.pinned]) {
    if (up(name2) === key) return 'set by the launcher';
  }
  return undefined;
}

/**
 * The value of `name` in an environment, reading own properties only (so `constructor` or
 * `__proto__` never resolve to Object.prototype). Windows: the exact spelling wins, else the first
 * case-insensitive match in sorted order, so the answer does not depend on insertion order.
 */
export function lookupEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  platform: Platform,
): string | undefined {
  if (Object.hasOwn(env, name)) {
    const value = env[name];
    if (typeof value === 'string') return value;
  }
  if (platform !== 'windows') return undefined;
  for (const key of Object.keys(env).sort()) {
    const value = env[key];
    if (sameEnvName(key, name, platform) && typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * One entry per variable: a later entry replaces every earlier entry for the same name (on Windows
 * compared case-insensitively, so the result never holds both `Path` and `PATH`) and takes the later
 * position. Pure; the input is not modified.
 */
export function dedupeEnvEntries<T extends { readonly name: string }>(
  entries: readonly T[],
  platform: Platform,
): T[] {
  const out: T[] = [];
  for (const entry of entries) {
    const earlier = out.findIndex((e) => sameEnvName(e.name, entry.name, platform));
    if (earlier !== -1) out.splice(earlier, 1);
    out.push(entry);
  }
  return out;
}

/**
 * Names that look like they hold a secret (OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD, …). Reports
 * never print such a value, even when it is merely inherited rather than a declared credential.
 */
export function looksSecret(name: string): boolean {
  return /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|COOKIE|SESSION|PAT|PRIVATE)(_|$)|APIKEY/i.test(
    name,
  );
}
