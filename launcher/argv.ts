// Pure: the Qwen argv the launcher runs. The launcher re-checks the rendered plan itself with the
// argument policy's one check (src/policy/arguments.ts).
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import { qwenArgvProblems } from '../src/policy/arguments.js';
import { ARGUMENT_POLICY, type ArgumentPolicy } from '../src/policy/policies.js';
import { failure, show } from './messages.js';

export interface ArgvOptions {
  externalContextActive: boolean;
}

/**
 * `[qwenCli, ...plan.argv, ...externalContext.argv]` (the external-context part only while the profile
 * is active), checked against the argument policy; throws a LaunchError naming every refused part.
 */
export function buildArgv(
  plan: LaunchPlan,
  options: ArgvOptions,
  policy: ArgumentPolicy = ARGUMENT_POLICY,
): string[] {
  const qwenArgv = options.externalContextActive
    ? [...plan.argv, ...plan.externalContext.argv]
    : [...plan.argv];
  const problems = qwenArgvProblems(qwenArgv, policy, plan.platform);
  if (problems.length > 0) {
    throw failure(
      ...problems.map((p) => `launch plan for ${show(plan.profile)}: ${p}; re-render the deployment`),
    );
  }
  return [plan.qwenCli, ...qwenArgv];
}
