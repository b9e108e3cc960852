// The admin CLI's typed errors and their exit codes, in one place. Only `main` calls process.exit.

/** Bad command line: unknown flag, missing value, wrong command. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The administrator's input (deployment.json, an install directory, a settings file) is wrong. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/** A check failed (verify found violations); the report has already been printed. */
export class CheckFailed extends Error {
  override readonly name = 'CheckFailed';
}

export const EXIT = { ok: 0, failure: 1, usage: 2, internal: 70 } as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof InputError || error instanceof CheckFailed) return EXIT.failure;
  return EXIT.internal;
}
