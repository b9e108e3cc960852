// The credentials a launch delivers and the one way their values are read: the launcher reads them
// for Qwen's environment, `qwen-managed probe` for its search, and the host checks it shares with
// verify (src/host/install-checks.ts) pin their files. Each caller words the problems its own way.
import { errorCode } from '../base/errors.js';
import type { Platform } from '../base/platform.js';
import type { CredentialSource, LaunchPlan } from '../contracts/launch-plan.js';
import { lookupEnv, sameEnvName } from './environment-names.js';

/** What the credential rules read of a launch plan (Qwen's and OpenClaw's have it alike). */
export type CredentialRoutes = Pick<LaunchPlan, 'credentials'> & {
  externalContext: Pick<LaunchPlan['externalContext'], 'credentials'>;
};

/** True for a provider credential of a rolled-back profile: it stays out of the launch, however routed. */
export function withheldCredential(
  plan: CredentialRoutes,
  name: string,
  externalContextActive: boolean,
  platform: Platform,
): boolean {
  return (
    !externalContextActive && plan.externalContext.credentials.some((c) => sameEnvName(c, name, platform))
  );
}

/** The credentials this launch delivers: those routed to the profile, minus provider ones when rolled back. */
export function routedCredentials(
  plan: CredentialRoutes,
  externalContextActive: boolean,
  platform: Platform,
): Array<[string, CredentialSource]> {
  return Object.entries(plan.credentials).filter(
    ([name]) => !withheldCredential(plan, name, externalContextActive, platform),
  );
}

/** A credential file's value: one trailing `\n` or `\r\n` stripped; undefined when nothing is left. */
export function credentialFileValue(content: string): string | undefined {
  const value = content.endsWith('\r\n')
    ? content.slice(0, -2)
    : content.endsWith('\n')
      ? content.slice(0, -1)
      : content;
  return value === '' ? undefined : value;
}

export interface CredentialReadIo {
  /** The caller's environment, for an inherited credential. */
  callerEnv: Readonly<Record<string, string | undefined>>;
  platform: Platform;
  /** Reads a credential file as UTF-8. */
  readFile(path: string): string;
}

/** A value, or why there is none (never the value, its length or a prefix). */
export type CredentialRead =
  | { ok: true; value: string }
  /** An inherited credential absent (or empty) in the caller's environment. */
  | { ok: false; problem: 'unset' }
  | { ok: false; problem: 'unreadable'; file: string; code: string }
  | { ok: false; problem: 'empty'; file: string }
  /** The environment block cannot carry a NUL byte. */
  | { ok: false; problem: 'nul' }
  | { ok: false; problem: 'line-break' };

/** Reads one routed credential from its file or the caller's environment. */
export function readCredential(name: string, source: CredentialSource, io: CredentialReadIo): CredentialRead {
  let value: string | undefined;
  if ('file' in source) {
    let content: string;
    try {
      content = io.readFile(source.file);
    } catch (error) {
      return { ok: false, problem: 'unreadable', file: source.file, code: errorCode(error) };
    }
    value = credentialFileValue(content);
    if (value === undefined) return { ok: false, problem: 'empty', file: source.file };
  } else {
    value = lookupEnv(io.callerEnv, name, io.platform);
    if (value === undefined || value === '') return { ok: false, problem: 'unset' };
  }
  if (value.includes('\0')) return { ok: false, problem: 'nul' };
  // Every credential travels in an HTTP header, which no line break survives: every request would fail.
  if (/[\r\n]/.test(value)) return { ok: false, problem: 'line-break' };
  return { ok: true, value };
}
