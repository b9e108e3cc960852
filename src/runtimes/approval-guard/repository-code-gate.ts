// The repository-code rule's reason, and whether a line may run any repository code at all: only a
// line that passes this gate runs the rule (under its V8 timeout, whose watchdog thread costs ~1 ms).
import { commandName, QWEN_READ_ONLY_COMMANDS, shellCommands } from './shell-paths.js';

export const REPOSITORY_CODE_REASON =
  "This command runs code the repository defines, with this session's environment (Qwen's own " +
  'dialog names only the command). It runs: ';

/** The rule's entry, as the host lends it (undefined: no repository to read). */
export type RepositoryCodeRisk = (joined: string, directory: unknown, root: string) => string | undefined;

/**
 * Whether a line may run repository code: some command's name is not one of Qwen's read-only
 * programs (`git` and `find`, which may run hooks or `-exec`, count as others), or is quoted or expanded.
 */
export function mayRunRepositoryCode(joined: string): boolean {
  return shellCommands(joined).some(({ words }) => {
    const name = commandName(words);
    if (name === undefined) return false;
    return (
      !name.plain || name.text === 'git' || name.text === 'find' || !QWEN_READ_ONLY_COMMANDS.has(name.text)
    );
  });
}
