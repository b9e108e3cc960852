// The errors every layer may throw. Each expected error carries its exit code and says whether its
// message is fixed text; an entry point maps an error with one rule (exitCodeOf), and anything that
// is not a ManagedError is a bug: exit 70, "internal error".
import { MAX_CONFIG_BYTES } from './limits.js';

/** The exit codes of every entry point (docs/admin.md, "Exit codes"). */
export const EXIT = { ok: 0, failure: 1, usage: 2, internal: 70 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error the program expects. `fixedMessage`: true when the message is fixed text chosen by code
 * (never a key, variable name, path, URL or value: safe for a runtime's stderr, which Qwen may show or
 * log); false when it names keys and paths for the administrator (the admin CLI and the launcher).
 */
export abstract class ManagedError extends Error {
  abstract readonly exitCode: ExitCode;
  abstract readonly fixedMessage: boolean;
}

/** The one error → exit code rule: the error's own code, or 70 for anything unforeseen (a bug). */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof ManagedError ? error.exitCode : EXIT.internal;
}

/** A refusal of the administrator's input (exit 1) whose message names the key, path and fix. */
export abstract class AdminInputError extends ManagedError {
  readonly exitCode: ExitCode = EXIT.failure;
  readonly fixedMessage = false;
}

// One error class for every runtime configuration failure. Messages are fixed text chosen by code:
// they never contain a credential value, a credential's variable name, a URL or any config value.

export const CONFIGURATION_MESSAGES = {
  'path-missing': 'The external context configuration path is not set.',
  'path-not-absolute': 'The external context configuration path must be absolute.',
  'file-unreadable': 'The external context configuration file cannot be read.',
  'file-not-regular': 'The external context configuration path is not a regular file.',
  // Fixed text all the same: the cap is a constant of this toolkit, never a value of the config.
  'file-too-large': `The external context configuration file is larger than ${MAX_CONFIG_BYTES / 1024} KiB.`,
  'file-not-utf8': 'The external context configuration file is not valid UTF-8.',
  'file-not-json': 'The external context configuration file is not valid JSON.',
  'schema-invalid': 'The external context configuration does not match the schema.',
  'version-unsupported': 'The external context configuration version is not supported here.',
  'scope-invalid': 'The Mem0 scope does not match the preset.',
  'write-unsupported': 'Memory writes need a Mem0 provider whose preset defines a write.',
  'credential-missing': 'A provider credential is not set.',
  'credential-placeholder': 'A provider credential holds an unexpanded placeholder.',
  'repository-root-invalid': 'The auto-recall repository root is not a usable directory.',
  'proxy-invalid': 'The proxy configuration is invalid.',
} as const;

export type ConfigurationErrorCode = keyof typeof CONFIGURATION_MESSAGES;

export class ConfigurationError extends ManagedError {
  override readonly name = 'ConfigurationError';
  readonly exitCode = EXIT.failure;
  readonly fixedMessage = true;
  readonly code: ConfigurationErrorCode;
  /** Key path of a schema failure (keys only, never values) for the admin CLI; never printed by runtimes. */
  readonly keyPath: readonly (string | number)[] | undefined;

  constructor(code: ConfigurationErrorCode, keyPath?: readonly (string | number)[]) {
    super(CONFIGURATION_MESSAGES[code]);
    this.code = code;
    this.keyPath = keyPath;
  }
}

/** The errno code of a failed file-system call (`ENOENT`, `EACCES`, …), or `error` without one. */
export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
}
