// profiles/<kind>/external-context.json: version 2 for auto-recall and openclaw-recall, version 1 otherwise (write adds
// `write: {"enabled": true}`). Holds only credential variable NAMES, never secrets.

import { type AnyProfileKind, OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import type { JsonObject } from '../../text/json.js';
import { substitute } from '../templates/substitute.js';
import { TEMPLATES } from '../templates/templates.js';
import { brokeredProvider, brokerPort } from './broker-model.js';
import type { Deployment } from './schema.js';

/** The provider config version a profile's runtime reads: 2 for the auto-recall hook, else 1. */
export function providerConfigVersion(kind: AnyProfileKind): 1 | 2 {
  return kind === 'auto-recall' || kind === 'openclaw-recall' ? 2 : 1;
}

export function providerConfigFor(kind: AnyProfileKind, deployment: Deployment): JsonObject {
  const profile = deployment.profiles[kind];
  if (profile === undefined) throw new Error(`profile ${kind} is not deployed`);
  // With a broker the runtime calls the profile's listener; the contract on the wire stays the same.
  const provider =
    deployment.broker === undefined || kind === OPENCLAW_PROFILE
      ? profile.provider
      : brokeredProvider(profile.provider, brokerPort(deployment, kind));
  return substitute(TEMPLATES.providerConfig[kind], {
    timeoutMs: profile.timeoutMs,
    provider,
    repositoryRoot: deployment.repositoryRoot,
  }) as JsonObject;
}
