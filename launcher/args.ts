// Step 1, pure: the launcher's own command line. Only `--profile <kind>` (or `--profile=<kind>`, once),
// `--help` and `--version` exist. Caller arguments are never passed to Qwen, so everything else is
// refused by name — a Qwen flag, `--`, a subcommand or a plain word alike.
import { type AnyProfileKind, isAnyProfileKind, unknownProfileKind } from '../src/contracts/launch-plan.js';
import { refusedReason } from '../src/policy/arguments.js';
import type { ArgumentPolicy } from '../src/policy/policies.js';
import { show } from '../src/policy/quote.js';

export type ParsedArgs =
  | { kind: 'launch'; profile: AnyProfileKind }
  | { kind: 'help' }
  | { kind: 'version' }
  /** `argument` is the refused argument as typed, or undefined when something is missing. */
  | { kind: 'refused'; argument: string | undefined; message: string };

const PROFILE_FLAG = '--profile';

/** The Qwen flag an argument spells (`--prompt=x` → `--prompt`, `-pfoo` → `-p`), if it is one. */
function flagName(arg: string): string {
  if (arg.startsWith('--')) return arg.split('=', 1)[0] ?? arg;
  return arg.slice(0, 2);
}

function whyRefused(arg: string, policy: ArgumentPolicy): string {
  // `--` would be the classic way to smuggle flags past a wrapper; here nothing follows at all.
  if (arg === '--') return 'nothing you type is passed to Qwen, so there is no end of options to mark';
  if (arg.startsWith('-')) {
    const reason = refusedReason(flagName(arg), policy);
    if (reason !== undefined) return `a Qwen option (${reason}); nothing you type is passed to Qwen`;
    return 'not an option of launch-qwen; nothing you type is passed to Qwen';
  }
  if (policy.refusedSubcommands.includes(arg)) {
    return 'a Qwen subcommand; only the managed interactive session can be started';
  }
  // Qwen reads any positional word as a prompt and answers headless, outside the managed session.
  return 'a word would reach Qwen as a headless prompt; type your prompt inside Qwen';
}

function refused(argument: string | undefined, message: string): ParsedArgs {
  return { kind: 'refused', argument, message };
}

function refuse(arg: string, why: string): ParsedArgs {
  return refused(arg, `refused argument ${show(arg)}: ${why}`);
}

export function parseArgs(argv: readonly string[], policy: ArgumentPolicy): ParsedArgs {
  let profile: string | undefined;
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help') {
      help = true;
    } else if (arg === '--version') {
      version = true;
    } else if (arg === PROFILE_FLAG || arg.startsWith(`${PROFILE_FLAG}=`)) {
      // Once only: a second --profile would leave the reader guessing which one wins.
      if (profile !== undefined) return refuse(arg, `${PROFILE_FLAG} may be given only once`);
      if (arg === PROFILE_FLAG) {
        const value = argv[i + 1];
        if (value === undefined) return refused(PROFILE_FLAG, `missing value: ${PROFILE_FLAG} <kind>`);
        // `--profile --yolo` names a flag, not a kind: refuse the flag itself.
        if (value.startsWith('-')) return refuse(value, whyRefused(value, policy));
        profile = value;
        i++;
      } else {
        profile = arg.slice(PROFILE_FLAG.length + 1);
      }
    } else {
      return refuse(arg, whyRefused(arg, policy));
    }
  }
  if (help) return { kind: 'help' };
  if (version) return { kind: 'version' };
  if (profile === undefined) return refused(undefined, `missing ${PROFILE_FLAG} <kind>`);
  if (!isAnyProfileKind(profile)) return refused(profile, unknownProfileKind(profile));
  return { kind: 'launch', profile };
}
