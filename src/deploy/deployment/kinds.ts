// The deployed profile kinds in their canonical order (the order of PROFILE_KINDS, never the file's).
import {
  ALL_PROFILE_KINDS,
  type AnyProfileKind,
  PROFILE_KINDS,
  type ProfileKind,
} from '../../contracts/launch-plan.js';
import type { Deployment } from './schema.js';

/** The deployed Qwen profiles. */
export function deployedKinds(deployment: Pick<Deployment, 'profiles'>): ProfileKind[] {
  return PROFILE_KINDS.filter((kind) => deployment.profiles[kind] !== undefined);
}

/** Every deployed profile, Qwen's then OpenClaw's. */
export function deployedProfileKinds(deployment: Pick<Deployment, 'profiles'>): AnyProfileKind[] {
  return ALL_PROFILE_KINDS.filter((kind) => deployment.profiles[kind] !== undefined);
}
