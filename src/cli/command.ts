// What every admin subcommand looks like. Commands get their I/O injected so tests run them in-process.
import type { Readable, Writable } from 'node:stream';

export interface CliIO {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin: Readable;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  /**
   * Runs `handler` on Ctrl+C (SIGINT) until the returned function is called; the process then ends
   * with exit 130. Absent in-process (tests): Ctrl+C cannot happen there.
   */
  onInterrupt?(handler: () => Promise<void>): () => void;
}

/** The I/O of a real process, for the entries (main.ts, rollback-main.ts) to pass in. */
export function processIO(proc: NodeJS.Process): CliIO {
  return {
    env: proc.env,
    cwd: proc.cwd(),
    stdin: proc.stdin,
    stdout: proc.stdout,
    stderr: proc.stderr,
    onInterrupt(handler) {
      const listener = () => {
        // A second Ctrl+C while the handler runs must not end the process before the lock is released.
        proc.removeListener('SIGINT', listener);
        proc.on('SIGINT', () => {});
        void handler().finally(() => proc.exit(130));
      };
      proc.on('SIGINT', listener);
      return () => proc.removeListener('SIGINT', listener);
    },
  };
}

export interface Command {
  name: string;
  /** One line for `qwen-managed --help`. */
  summary: string;
  /** Full `--help` text for this command. */
  help: string;
  /** Resolves to the exit code; throws UsageError / InputError / CheckFailed (see errors.ts). */
  run(args: readonly string[], io: CliIO): Promise<number>;
}
