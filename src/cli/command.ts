// What every admin subcommand looks like, and the one way a command is wired: defineCommand() takes
// its name, help, flag table and a run over parsed flags; flag parsing, --help and the command's
// name on every refusal are done here, once. Commands get their I/O and the machine's dependencies
// injected, so tests run them in-process.
import type { Readable, Writable } from 'node:stream';
import { commandError, fileSystemRefusal } from './command-errors.js';
import { type FlagOptions, type Flags, parseFlags } from './flags.js';

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

/**
 * The I/O of a real process, for the entries (qwen-managed.ts, rollback.ts) to pass in. `name`
 * prefixes the one line a failed write of the output gets.
 */
export function processIO(proc: NodeJS.Process, name: string): CliIO {
  // Node throws an unhandled write error as a stack trace. A reader that went away (`| head`) only
  // ends the output: the command ends as it would. Any other (a full disk) loses it: exit 1, one line.
  let lost: NodeJS.ErrnoException | undefined;
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') lost ??= error;
  };
  proc.stdout.on('error', onError);
  proc.stderr.on('error', onError);
  proc.once('exit', () => {
    if (lost === undefined) return;
    const refusal = fileSystemRefusal(undefined, Object.assign(lost, { path: 'stdout', syscall: 'write' }));
    proc.stderr.write(
      `${name}: ${refusal?.message ?? `cannot write stdout (${lost.code ?? lost.message})`}\n`,
    );
    if (proc.exitCode === undefined || proc.exitCode === 0) proc.exitCode = 1;
  });
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
  /** Resolves to the exit code; throws UsageError / InputError / CheckFailed (see command-errors.ts). */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

export interface CommandSpec<O extends FlagOptions, D> {
  name: string;
  /** One line for `qwen-managed --help`. */
  summary: string;
  /** Full `--help` text. */
  help: string;
  flags: O;
  /** The command over its parsed flags; domain steps are named functions it calls. */
  run(flags: Flags<O>, io: CliIO, deps: D): Promise<number>;
  /** Sees every refusal before it propagates (verify --json prints it as JSON too). */
  refused?(error: unknown, args: readonly string[], io: CliIO): void;
}

/** A command factory: the entry passes the dependencies (the program's, or a test's). */
export type CommandFactory<D> = (deps: D) => Command;

/**
 * The one way to wire a command: strict flags with -h/--help (parseFlags), then `run`; an expected
 * error of a lower layer gets the command's name in front (commandError), a bug stays a bug.
 */
export function defineCommand<O extends FlagOptions, D>(spec: CommandSpec<O, D>): CommandFactory<D> {
  return (deps) => ({
    name: spec.name,
    summary: spec.summary,
    help: spec.help,
    async run(args, io) {
      try {
        const flags = parseFlags(spec.name, args, spec.flags, { text: spec.help, stdout: io.stdout });
        if (flags === undefined) return 0;
        return await spec.run(flags, io, deps);
      } catch (error) {
        const refusal = commandError(spec.name, error);
        spec.refused?.(refusal, args, io);
        throw refusal;
      }
    },
  });
}
