// What a rollback changes, for the report and `--dry-run`.
import { AdminInputError } from '../../base/errors.js';
import type { RemovedHook } from '../jsonc/remove-hooks.js';

export interface FileChange {
  /** Path shown to the administrator (relative to the install, or the settings file as given). */
  file: string;
  before: string;
  after: string;
}

export interface RollbackOutcome {
  changes: FileChange[];
  removedHooks: RemovedHook[];
  /** False when nothing needed to change (rollback is idempotent) or with --dry-run. */
  written: boolean;
  /** Backup copies made (relative folder for an install, file paths for a settings file). */
  backups: string[];
}

export class RollbackError extends AdminInputError {
  override readonly name = 'RollbackError';
}

export const RESTART_MESSAGE =
  'Restart Qwen: running sessions keep the hooks and provider config they loaded at start. Provider data (memories already stored, provider-side logs) is untouched.';
