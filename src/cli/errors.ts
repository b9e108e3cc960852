// The admin CLI's own errors. Every expected error carries its exit code (src/base/errors.ts), so the
// CLI maps errors with one rule, in program.ts; only `main` sets the process exit code.
import { AdminInputError, EXIT, type ExitCode, ManagedError } from '../base/errors.js';

/** Bad command line: unknown flag, missing value, wrong command. */
export class UsageError extends ManagedError {
  override readonly name = 'UsageError';
  readonly exitCode: ExitCode = EXIT.usage;
  readonly fixedMessage = false;
}

/** The administrator's input (deployment.json, an install directory, a settings file) is wrong. */
export class InputError extends AdminInputError {
  override readonly name = 'InputError';
}

/** A check failed (verify found violations); the report has already been printed. */
export class CheckFailed extends AdminInputError {
  override readonly name = 'CheckFailed';
}

/**
 * A command's refusal with the command's name in front: an expected error of a lower layer (render,
 * verify, rollback, the launcher's checks) keeps its exit code; anything else is rethrown as the bug it is.
 */
export function commandError(command: string, error: unknown): unknown {
  if (!(error instanceof ManagedError) || error.exitCode === EXIT.internal) return error;
  if (error instanceof UsageError || error instanceof InputError || error instanceof CheckFailed)
    return error;
  return error.exitCode === EXIT.usage
    ? new UsageError(`${command}: ${error.message}`)
    : new InputError(`${command}: ${error.message}`);
}
