// profiles/<kind>/external-context.json: version 2 for auto-recall and openclaw-recall, version 1 otherwise (write adds
// `write: {"enabled": true}`). Holds only credential variable NAMES, never secrets.

import type { AnyProfileKind } from '../../contracts/launch-plan.js';
import type { JsonObject } from '../../text/json.js';
import type { Deployment } from '../deployment/schema.js';
import { substitute } from './substitute.js';
import { TEMPLATES } from './templates.js';

/** The provider config version a profile's runtime reads: 2 for the auto-recall hook, else 1. */
export function providerConfigVersion(kind: AnyProfileKind): 1 | 2 {
  return kind === 'auto-recall' || kind === 'openclaw-recall' ? 2 : 1;
}

export function providerConfigFor(kind: AnyProfileKind, deployment: Deployment): JsonObject {
  const profile = deployment.profiles[kind];
  if (profile === undefined) throw new Error(`profile ${kind} is not deployed`);
  return substitute(TEMPLATES.providerConfig[kind], {
    timeoutMs: profile.timeoutMs,
    provider: profile.provider,
    repositoryRoot: deployment.repositoryRoot,
  }) as JsonObject;
}
