// Dispatch for the admin CLI: `<program> <command> [args]`, `--help`, `--version`, and the mapping of
// errors to exit codes (command-errors.ts). No process access here: the entries pass the I/O in.

import { EXIT, exitCodeOf } from '../base/errors.js';
import { terminalText } from '../policy/quote.js';
import { closest } from '../text/closest.js';
import type { CliIO, Command } from './command.js';
import { fileSystemRefusal, UsageError } from './command-errors.js';

export interface ProgramInfo {
  name: string;
  version: string;
  description: string;
  /** What `--version` prints after the name and version (the Qwen versions the toolkit supports). */
  versionDetails?: readonly string[];
}

/** `--version`, `-V`, `-v` and the word `version`: one answer. */
const VERSION_WORDS = new Set(['--version', '-V', '-v', 'version']);

function versionText(info: ProgramInfo): string {
  return [`${info.name} ${info.version}`, ...(info.versionDetails ?? [])].join('\n') + '\n';
}

export function programHelp(info: ProgramInfo, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: ${info.name} <command> [options]`,
    '',
    info.description,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${info.name} <command> --help\` for a command's options.`,
    '',
    'Options:',
    '  -h, --help          show this help',
    '  -V, -v, --version   print the version and the Qwen versions it supports',
    '',
    'Exit codes: 0 success, 1 refused input or failed checks, 2 usage error, 70 internal error.',
    '',
  ].join('\n');
}

async function guarded(
  info: ProgramInfo,
  io: CliIO,
  hint: string,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (thrown) {
    // A file-system refusal is the administrator's (exit 1, one line), not a bug.
    const command = hint.startsWith(`${info.name} `) ? hint.slice(info.name.length + 1) : undefined;
    const error = fileSystemRefusal(command, thrown) ?? thrown;
    // The one mapping: an expected error carries its exit code; anything else is a bug (70).
    const code = exitCodeOf(error);
    // A path in a refusal may hold the caller's control characters: shown, never run by the terminal.
    const message = terminalText(error instanceof Error ? error.message : String(error));
    if (code === EXIT.internal) io.stderr.write(`${info.name}: internal error: ${message}\n`);
    else io.stderr.write(`${info.name}: ${message}\n`);
    if (error instanceof UsageError) io.stderr.write(`(see \`${hint} --help\`)\n`);
    return code;
  }
}

export async function runProgram(
  info: ProgramInfo,
  commands: readonly Command[],
  argv: readonly string[],
  io: CliIO,
): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(programHelp(info, commands));
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout.write(programHelp(info, commands));
    return EXIT.ok;
  }
  if (VERSION_WORDS.has(first) && rest.length === 0) {
    io.stdout.write(versionText(info));
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  return guarded(info, io, command === undefined ? info.name : `${info.name} ${first}`, async () => {
    if (command === undefined) {
      const names = commands.map((c) => c.name);
      const near = closest(first, names);
      throw new UsageError(
        `unknown command ${JSON.stringify(first)}${near === undefined ? '' : `; did you mean "${near}"?`} (commands: ${names.join(', ')})`,
      );
    }
    return command.run(rest, io);
  });
}

/** A one-command program (the rollback bundle): `<program> [args]`. */
export async function runSingleCommand(
  info: ProgramInfo,
  command: Command,
  argv: readonly string[],
  io: CliIO,
): Promise<number> {
  if (argv.length === 1 && VERSION_WORDS.has(argv[0]!) && argv[0] !== 'version') {
    io.stdout.write(versionText(info));
    return EXIT.ok;
  }
  return guarded(info, io, info.name, () => command.run(argv, io));
}
