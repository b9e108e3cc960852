// The profile's credential values, read at launch with the one reader (src/policy/routed-credentials.ts)
// and worded for the developer. Messages name the variable and the file, never the value — not even
// a length or a prefix.
import type { CredentialSource } from '../src/contracts/launch-plan.js';
import { lookupEnv } from '../src/policy/environment-names.js';
import { show } from '../src/policy/quote.js';
import {
  type CredentialReadIo,
  type CredentialRoutes,
  readCredential,
  routedCredentials,
} from '../src/policy/routed-credentials.js';
import { REDACTED } from './env.js';
import { failure } from './messages.js';

export interface CredentialOptions extends CredentialReadIo {
  externalContextActive: boolean;
}

/** Reads every routed credential; throws one LaunchError listing every credential that is unusable. */
export function readCredentials(plan: CredentialRoutes, options: CredentialOptions): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  const problems: string[] = [];
  for (const [name, source] of routedCredentials(plan, options.externalContextActive, options.platform)) {
    const read = readCredential(name, source, options);
    if (read.ok) {
      values[name] = read.value;
      continue;
    }
    switch (read.problem) {
      case 'unreadable':
        problems.push(
          `credential ${name}: cannot read ${show(read.file)} (${read.code}); ask your administrator`,
        );
        break;
      case 'empty':
        problems.push(`credential ${name}: the file ${show(read.file)} is empty; ask your administrator`);
        break;
      case 'unset':
        problems.push(
          `credential ${name} is taken from your environment, but it is not set; set it and retry`,
        );
        break;
      case 'nul':
        problems.push(`credential ${name} contains a NUL byte and cannot be passed in the environment`);
        break;
      case 'line-break':
        problems.push(
          `credential ${name} holds a line break inside the secret, which no HTTP header can carry; ${'file' in source ? 'ask your administrator' : `set ${name} as one line and retry`}`,
        );
        break;
    }
  }
  if (problems.length > 0) throw failure(...problems);
  return values;
}

/** What a prepared launch (Qwen's or OpenClaw's) carries of its credentials. */
export interface SessionCredentials {
  /** The credentials the launch delivers, by name, with where each comes from. */
  routed: Array<[string, CredentialSource]>;
  /** Their values: read for a launch; for `plan`, redacted (plan never reads a secret). */
  values: Record<string, string>;
  /** Inherited credentials absent from the caller's environment (plan: the launcher would refuse). */
  missing: string[];
}

export function sessionCredentials(
  plan: CredentialRoutes,
  purpose: 'launch' | 'plan',
  options: CredentialOptions & { callerEnv: NodeJS.ProcessEnv },
): SessionCredentials {
  const routed = routedCredentials(plan, options.externalContextActive, options.platform);
  const values =
    purpose === 'launch'
      ? readCredentials(plan, options)
      : Object.fromEntries(routed.map(([name]) => [name, REDACTED]));
  const missing = routed
    .filter(([name, source]) => 'inherit' in source && !lookupEnv(options.callerEnv, name, options.platform))
    .map(([name]) => name);
  return { routed, values, missing };
}
