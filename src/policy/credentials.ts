// Which credentials a launch delivers: the launcher reads them, and the host checks it shares with
// verify (src/host/install-checks.ts) pin their files.
import type { Platform } from '../base/platform.js';
import type { CredentialSource, LaunchPlan } from '../contracts/launch-plan.js';
import { sameEnvName } from './environment-names.js';

/** True for a provider credential of a rolled-back profile: it stays out of the launch, however routed. */
export function withheldCredential(
  plan: LaunchPlan,
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
  plan: LaunchPlan,
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
