// Pure: a Qwen argv checked against the argument policy (policies/arguments.json). Verify and the
// launcher use this one check, so a hand-edited (and re-hashed) launch.json still cannot turn on
// YOLO, a headless prompt or another input path.
import type { Platform } from '../base/platform.js';
import type { LaunchPlan } from '../contracts/launch-plan.js';
import type { ArgumentPolicy } from './policies.js';
import { PATH_PROBLEM_TEXT, pinnedPathProblem, show } from './quote.js';

function has<T>(record: Readonly<Record<string, T>>, key: string): boolean {
  return Object.hasOwn(record, key);
}

/** The policy's reason for refusing `flag` (by name or by prefix), or undefined when it names none. */
export function refusedReason(flag: string, policy: ArgumentPolicy): string | undefined {
  // Own properties only: a flag such as `constructor` must not find Object.prototype members.
  if (has(policy.refusedFlags, flag)) return policy.refusedFlags[flag];
  for (const [prefix, reason] of Object.entries(policy.refusedFlagPrefixes)) {
    if (flag.startsWith(prefix)) return reason;
  }
  return undefined;
}

interface FlagUse {
  flag: string;
  value: string | undefined;
}

/** Splits an argv into flag uses and stray words; a value is `--flag=value` or the next word. */
function walk(
  argv: readonly string[],
  policy: ArgumentPolicy,
  onFlag: (use: FlagUse) => void,
  onWord: (word: string) => void,
): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--' || !arg.startsWith('-')) {
      onWord(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    let value = eq === -1 ? undefined : arg.slice(eq + 1);
    // Allowed flags all take a value; consume the next word so it is not mistaken for a prompt.
    if (value === undefined && has(policy.allowedFlags, flag) && i + 1 < argv.length) value = argv[++i];
    onFlag({ flag, value });
  }
}

/** Every way `argv` (without the executable and cli) breaks the argument policy; empty when it does not. */
export function qwenArgvProblems(
  argv: readonly string[],
  policy: ArgumentPolicy,
  platform: Platform,
): string[] {
  const problems: string[] = [];
  walk(
    argv,
    policy,
    ({ flag, value }) => {
      const allowed = has(policy.allowedFlags, flag) ? policy.allowedFlags[flag] : undefined;
      if (allowed !== undefined) {
        if (value === undefined) {
          problems.push(`Qwen option ${show(flag)} has no value`);
        } else if (allowed.values !== undefined && !allowed.values.includes(value)) {
          const reason = refusedReason(flag, policy);
          problems.push(
            `refused Qwen option ${show(`${flag} ${value}`)}` +
              (reason !== undefined ? ` (${reason})` : ` (allowed: ${allowed.values.join(', ')})`),
          );
        } else if (allowed.absolutePath === true) {
          const problem = pinnedPathProblem(value, platform);
          if (problem !== undefined) {
            problems.push(
              `Qwen option ${show(flag)} needs a pinned path: ${show(value)} ${PATH_PROBLEM_TEXT[problem]}`,
            );
          }
        }
        return;
      }
      const reason = refusedReason(flag, policy);
      // Allow-list: a flag the policy does not know is refused as well as one it names.
      problems.push(`refused Qwen option ${show(flag)} (${reason ?? 'not in the managed argument policy'})`);
    },
    (word) => {
      if (word === '--') {
        problems.push('refused "--" in the Qwen argv (an end-of-options marker)');
      } else if (policy.refusedSubcommands.includes(word)) {
        problems.push(`refused Qwen subcommand ${show(word)}`);
      } else {
        problems.push(
          `refused word ${show(word)} in the Qwen argv (Qwen would read it as a headless prompt)`,
        );
      }
    },
  );
  const managed = policy.managed.all;
  // `--extensions=none` spells the same as `--extensions none`.
  const words = argv.flatMap((a) =>
    a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a],
  );
  const containsManaged = words.some((_, i) => managed.every((m, j) => words[i + j] === m));
  // Every managed argv carries the policy's fixed flags (`--extensions none`: no extension MCP surface).
  if (managed.length > 0 && !containsManaged) problems.push(`the Qwen argv lacks ${show(managed.join(' '))}`);
  return problems;
}

/** The values of the policy's absolute-path flags (e.g. `--mcp-config`): pinned files the launch uses. */
export function pinnedArgvPaths(argv: readonly string[], policy: ArgumentPolicy): string[] {
  const paths: string[] = [];
  walk(
    argv,
    policy,
    ({ flag, value }) => {
      if (value !== undefined && has(policy.allowedFlags, flag) && policy.allowedFlags[flag]?.absolutePath) {
        paths.push(value);
      }
    },
    () => {},
  );
  return paths;
}

/**
 * `[qwenCli, ...plan.argv, ...externalContext.argv]` (the external-context part only while the profile
 * is active) and every way it breaks the argument policy, one line each, for the launcher and verify.
 */
export function planArgv(
  plan: LaunchPlan,
  externalContextActive: boolean,
  policy: ArgumentPolicy,
): { argv: string[]; problems: string[] } {
  const qwenArgv = externalContextActive ? [...plan.argv, ...plan.externalContext.argv] : [...plan.argv];
  const problems = qwenArgvProblems(qwenArgv, policy, plan.platform).map(
    (p) => `launch plan for ${show(plan.profile)}: ${p}; re-render the deployment`,
  );
  return { argv: [plan.qwenCli, ...qwenArgv], problems };
}
