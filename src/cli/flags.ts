// Strict flag parsing shared by the admin commands: unknown flags and stray words are usage errors.
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { closest } from '../text/closest.js';
import { UsageError } from './command-errors.js';

/** A command's flag table, in node:util parseArgs' shape. */
export type FlagOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

/** The parsed values of a flag table. */
export type Flags<O extends FlagOptions> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : string;
};

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * A command's flags, parsed strictly, with `-h`/`--help` on every command: then `help` is written to
 * stdout and the result is undefined, and the command exits 0 without doing anything else.
 */
export function parseFlags<O extends FlagOptions>(
  command: string,
  args: readonly string[],
  options: O,
  help: { text: string; stdout: Writable },
): Flags<O> | undefined {
  let values: Flags<O> & { help?: boolean };
  try {
    values = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: { ...options, ...HELP_FLAG },
    }).values as Flags<O> & { help?: boolean };
  } catch (error) {
    throw new UsageError(
      `${command}: ${flagMessage(error as NodeJS.ErrnoException, Object.keys(options ?? {}))}`,
    );
  }
  if (values.help !== true) return values;
  help.stdout.write(help.text);
  return undefined;
}

/** Node's parseArgs message, with "did you mean" for an unknown option close to a known one. */
function flagMessage(error: NodeJS.ErrnoException, names: readonly string[]): string {
  const typed =
    error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(--?[^'=]+)/.exec(error.message)?.[1] : undefined;
  if (typed === undefined) return error.message;
  const near = closest(typed.replace(/^-+/, ''), [...names, 'help']);
  return near === undefined
    ? `Unknown option '${typed}' (options: ${[...names, 'help'].map((n) => `--${n}`).join(', ')})`
    : `Unknown option '${typed}'; did you mean '--${near}'?`;
}

export function required(command: string, flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`${command}: --${flag} is required`);
  return value;
}
