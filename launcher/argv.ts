// Pure: the Qwen argv the launcher runs. The launcher re-checks the rendered plan itself with the
// argument policy's one check (src/policy/arguments.ts).
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import { planArgv } from '../src/policy/arguments.js';
import { ARGUMENT_POLICY, type ArgumentPolicy } from '../src/policy/policies.js';
import { failure } from './messages.js';

export interface ArgvOptions {
  externalContextActive: boolean;
}

/** The plan's Qwen argv (src/policy/arguments.ts, planArgv); throws a LaunchError naming every refused part. */
export function buildArgv(
  plan: LaunchPlan,
  options: ArgvOptions,
  policy: ArgumentPolicy = ARGUMENT_POLICY,
): string[] {
  const { argv, problems } = planArgv(plan, options.externalContextActive, policy);
  if (problems.length > 0) throw failure(...problems);
  return argv;
}
