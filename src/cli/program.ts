// Dispatch for the admin CLI: `<program> <command> [args]`, `--help`, `--version`, and the mapping of
// errors to exit codes (command-errors.ts). No process access here: the entries pass the I/O in.

import { EXIT, exitCodeOf } from '../base/errors.js';
import type { CliIO, Command } from './command.js';
import { fileSystemRefusal, UsageError } from './command-errors.js';

export interface ProgramInfo {
  name: string;
  version: string;
  description: string;
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
    '  -h, --help     show this help',
    '  -V, --version  print the version',
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
    const message = error instanceof Error ? error.message : String(error);
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
  if (first === '--version' || first === '-V') {
    io.stdout.write(`${info.name} ${info.version}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  return guarded(info, io, command === undefined ? info.name : `${info.name} ${first}`, async () => {
    if (command === undefined) {
      throw new UsageError(
        `unknown command ${JSON.stringify(first)} (commands: ${commands.map((c) => c.name).join(', ')})`,
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
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout.write(`${info.name} ${info.version}\n`);
    return EXIT.ok;
  }
  return guarded(info, io, info.name, () => command.run(argv, io));
}
