// Strict flag parsing shared by the admin commands: unknown flags and stray words are usage errors.
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { show } from '../policy/quote.js';
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
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: { ...options, ...HELP_FLAG },
    });
  } catch (error) {
    throw new UsageError(
      `${command}: ${flagMessage(error as NodeJS.ErrnoException, Object.keys(options ?? {}))}`,
    );
  }
  // parseArgs keeps the last of a repeated value: `--dir a --dir b` would silently act on b only.
  const given = new Map<string, string[]>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    if (options[token.name]?.multiple === true) continue;
    given.set(token.name, [...(given.get(token.name) ?? []), token.value]);
  }
  for (const [name, values] of given) {
    if (values.length > 1)
      throw new UsageError(
        `${command}: --${name} is given ${values.length} times (${values.map(show).join(', ')}); give it once`,
      );
  }
  const values = parsed.values as Flags<O> & { help?: boolean };
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
