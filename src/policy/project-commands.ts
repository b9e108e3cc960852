// Project slash commands (<repository>/.qwen/commands, read by Qwen in a trusted folder): what the
// launcher refuses of them before Qwen starts (docs/repository.md, "Project slash commands"). Its own
// module: the built-in command table is needed only for a repository that has commands, so the
// launcher's main bundle does not carry it.
import { FILE_INJECTION, injections, SHELL_INJECTION } from '../qwen/commands.js';
import type { Refusal } from './repository.js';

/** A project command as the launcher read it (launcher/repository-project.ts). */
export interface CommandFile {
  file: string;
  /** The name Qwen gives it (src/qwen/commands.ts `commandName`). */
  name: string;
  /** The file's text; a TOML file's strings already decoded (`decodeTomlStrings`). */
  prompt: string;
}

/**
 * A project command may neither take a built-in's name (it would replace it: the user typing `/clear`
 * would run the repository's text) nor run a shell command (`!{…}` runs when the command is
 * invoked, in YOLO mode with no dialog and no PreToolUse hook, so the approval guard never sees it).
 * Its `@{…}` file injections are returned for the caller to judge with the path rule.
 */
export function decideCommand(
  command: CommandFile,
  builtins: ReadonlySet<string>,
): { refused: Refusal[]; fileInjections: string[] } {
  const refused: Refusal[] = [];
  if (builtins.has(command.name)) {
    refused.push({
      file: command.file,
      key: `/${command.name}`,
      why: `Qwen loads project commands after its own, so this file would replace the built-in /${command.name}`,
      fix: 'rename the file (its path below .qwen/commands is the command’s name)',
    });
  }
  if (command.prompt.includes(SHELL_INJECTION)) {
    refused.push({
      file: command.file,
      key: '!{…}',
      why: 'it runs a shell command whenever the command is invoked — in YOLO mode with no confirmation and no hook, so the approval guard never sees it',
      fix: 'remove the !{…} injection (ask the model to run the command: its shell tool asks first)',
    });
  }
  return { refused, fileInjections: injections(command.prompt, FILE_INJECTION) };
}
