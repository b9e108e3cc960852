// The profile's credential values, read at launch. Messages name the variable and the file, never
// the value — not even a length or a prefix.

import { errorCode } from '../src/base/errors.js';
import type { Platform } from '../src/base/platform.js';
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import { credentialFileValue, routedCredentials } from '../src/policy/credentials.js';
import { lookupEnv } from '../src/policy/environment-names.js';
import { show } from '../src/policy/quote.js';
import { failure } from './messages.js';

// Which credentials a launch routes is shared with verify's host checks (src/host/install-checks.ts).

export interface CredentialOptions {
  externalContextActive: boolean;
  callerEnv: Readonly<Record<string, string | undefined>>;
  platform: Platform;
  /** Reads a credential file as UTF-8. */
  readFile(path: string): string;
}

// The file rule is shared with the credential broker and verify (src/policy/credentials.ts).
export { credentialFileValue };

/** Reads every routed credential; throws one LaunchError listing every credential that is unusable. */
export function readCredentials(plan: LaunchPlan, options: CredentialOptions): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  const problems: string[] = [];
  for (const [name, source] of routedCredentials(plan, options.externalContextActive, options.platform)) {
    let value: string | undefined;
    if ('file' in source) {
      let content: string;
      try {
        content = options.readFile(source.file);
      } catch (error) {
        problems.push(
          `credential ${name}: cannot read ${show(source.file)} (${errorCode(error)}); ask your administrator`,
        );
        continue;
      }
      value = credentialFileValue(content);
      if (value === undefined) {
        problems.push(`credential ${name}: the file ${show(source.file)} is empty; ask your administrator`);
        continue;
      }
    } else {
      value = lookupEnv(options.callerEnv, name, options.platform);
      if (value === undefined || value === '') {
        problems.push(
          `credential ${name} is taken from your environment, but it is not set; set it and retry`,
        );
        continue;
      }
    }
    // The environment block cannot carry a NUL byte; say so instead of failing inside execve.
    if (value.includes('\0')) {
      problems.push(`credential ${name} contains a NUL byte and cannot be passed in the environment`);
      continue;
    }
    values[name] = value;
  }
  if (problems.length > 0) throw failure(...problems);
  return values;
}
