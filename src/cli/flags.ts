// Strict flag parsing shared by the admin commands: unknown flags and stray words are usage errors.
import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

export function parseFlags<O extends Options>(command: string, args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], strict: true, allowPositionals: false, options: options! })
      .values as {
      [K in keyof O]?: O[K] extends { type: 'boolean' }
        ? boolean
        : O[K] extends { multiple: true }
          ? string[]
          : string;
    };
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

export function required(command: string, flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`${command}: --${flag} is required`);
  return value;
}
