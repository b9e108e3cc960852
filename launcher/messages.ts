// Everything the launcher says, and the error type that carries its exit code to launch-qwen.ts.

import { EXIT, type ExitCode, ManagedError } from '../src/base/errors.js';
import { show } from '../src/policy/quote.js';

// Terminal-safe quoting and the pinned-path words live with the path rules; the launcher's modules take them from here.

export const PROGRAM = 'launch-qwen';

/** Exit codes of the launcher itself (Qwen's own status is passed through unchanged); no 70: see launch-qwen.ts. */
export const LAUNCH_EXIT = { ok: EXIT.ok, failure: EXIT.failure, usage: EXIT.usage } as const;

/** A refusal: every problem is one line naming what is wrong and, where possible, the fix. */
export class LaunchError extends ManagedError {
  override readonly name = 'LaunchError';
  readonly problems: readonly string[];
  readonly exitCode: ExitCode;
  readonly fixedMessage = false;

  constructor(exitCode: ExitCode, problems: readonly string[]) {
    super(problems.join('\n'));
    this.exitCode = exitCode;
    this.problems = problems;
  }
}

export function failure(...problems: string[]): LaunchError {
  return new LaunchError(LAUNCH_EXIT.failure, problems);
}

export function usage(...problems: string[]): LaunchError {
  return new LaunchError(LAUNCH_EXIT.usage, problems);
}

/** The agent a profile starts, as the launcher's messages name it. */
export type Agent = 'Qwen' | 'OpenClaw';

export function rolledBackNotice(kind: string, agent: Agent = 'Qwen'): string {
  return `${PROGRAM}: profile ${show(kind)} is rolled back; starting ${agent} without external context.`;
}

export function helpText(kinds: readonly string[]): string {
  return [
    `Usage: ${PROGRAM} --profile <kind>`,
    '',
    'Starts the pinned Qwen Code with the managed settings of one deployed profile;',
    'openclaw-recall starts the pinned OpenClaw for one turn, the message typed on the terminal.',
    `Profile kinds: ${kinds.join(', ')}.`,
    '',
    'Options:',
    '  --profile <kind>, --profile=<kind>  the profile to start (required, once)',
    '  --help                              print this help',
    '  --version                           print the qwen-managed version',
    '',
    'Every other argument is refused: nothing you type here is passed to Qwen or OpenClaw.',
    'Standard input and standard output must both be terminals.',
    '',
    'Exit codes:',
    '  0    --help or --version',
    '  2    a refused or missing argument, an unknown or undeployed profile',
    '  1    a pinned file, checksum, ownership or permission check failed; not a terminal;',
    '       a credential or the per-user Qwen home (OpenClaw state directory) is unusable;',
    '       the agent could not be started',
    '  *    otherwise the exit status of Qwen or OpenClaw (ended by a signal: the launcher ends by the',
    '       same signal)',
    '',
  ].join('\n');
}
