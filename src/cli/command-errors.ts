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

const FS_TEXT: Record<string, [string, string]> = {
  EACCES: [
    'permission denied',
    'run it as the user that owns the file (usually root), or fix its permissions',
  ],
  EPERM: [
    'operation not permitted',
    'run it as the user that owns the file (usually root), or fix its permissions',
  ],
  EROFS: ['read-only file system', 'use a writable location'],
  ENOENT: ['no such file or directory', 'check the path'],
  ENOTDIR: ['a component of the path is not a directory', 'check the path'],
  EISDIR: ['is a directory', 'name a file'],
  ENOSPC: ['no space left on device', 'free space, then run it again'],
  EDQUOT: ['disk quota exceeded', 'free space, then run it again'],
  ELOOP: ['too many symbolic links', 'check the path'],
  ENAMETOOLONG: ['file name too long', 'use a shorter path'],
  // A rename across file systems: the tree and its staging must share one.
  EXDEV: ['cross-device link not permitted', 'keep the path on one file system (no mount point inside it)'],
  EMLINK: ['too many links', 'free directory entries or choose another location'],
};

/**
 * A file-system refusal no lower layer explained (a permission, a missing file, a full disk): the
 * administrator's to fix, so exit 1 with one line naming the path and the fix — never "internal error".
 */
export function fileSystemRefusal(command: string | undefined, error: unknown): InputError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !Object.hasOwn(FS_TEXT, code)) return undefined;
  const [text, fix] = FS_TEXT[code]!;
  const what = syscall === undefined ? 'cannot use' : `cannot ${syscall}`;
  return new InputError(
    `${command === undefined ? '' : `${command}: `}${what} ${path ?? '(a file)'} (${code}: ${text}). Fix: ${fix}`,
  );
}
