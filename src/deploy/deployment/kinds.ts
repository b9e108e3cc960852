// The deployed profile kinds in their canonical order (the order of PROFILE_KINDS, never the file's).
import { PROFILE_KINDS, type ProfileKind } from '../../contracts/launch-plan.js';
import type { Deployment } from './schema.js';

export function deployedKinds(deployment: Pick<Deployment, 'profiles'>): ProfileKind[] {
  return PROFILE_KINDS.filter((kind) => deployment.profiles[kind] !== undefined);
}
