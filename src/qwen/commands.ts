// Project slash commands as Qwen Code 0.24 loads them — measured on the real CLI
// (scripts/e2e/measure-hostile.ts, section commands; docs/repository.md, "Project slash commands"):
//
// - every `**/*.md` and `**/*.toml` below `<repository>/.qwen/commands` (links followed) is a command
//   named by its path without the extension, directories joined by `:` (a `:` in a name becomes `_`);
// - commands load after the built-in ones and the last one of a name wins: `clear.md` replaces `/clear`;
//   a typed name is matched against names first, then aliases, so `exit.md` takes `/exit` from `/quit`;
// - the prompt's `!{…}` runs a shell command when the command is invoked — in YOLO mode without any
//   dialog and without PreToolUse hooks — and `@{…}` inserts a file or a whole directory, a relative
//   path resolved against the working directory with no workspace check;
// - the model may invoke a command itself (the `skill` tool) unless its front matter says
//   `disable-model-invocation: true`.
import builtinCommands from '../../policies/qwen/builtin-commands.json' with { type: 'json' };
import { DEFAULT_QWEN_VERSION } from './versions.js';

export const COMMANDS_DIR = 'commands';
export const SHELL_INJECTION = '!{';
export const FILE_INJECTION = '@{';

interface VersionCommands {
  commands: Record<string, string[]>;
  bundledSkills: string[];
}

const VERSIONS = builtinCommands.versions as Readonly<Record<string, VersionCommands>>;

/** Every name a typed `/name` reaches in this Qwen version before a project command: names, aliases, bundled skills. */
export function builtinCommandNames(version: string): ReadonlySet<string> {
  const entry = VERSIONS[version] ?? VERSIONS[DEFAULT_QWEN_VERSION]!;
  return new Set([
    ...Object.keys(entry.commands),
    ...Object.values(entry.commands).flat(),
    ...entry.bundledSkills,
  ]);
}

/** The command name Qwen gives a file: its path below the commands directory, without the extension. */
export function commandName(relativePath: string): string {
  const withoutExtension = relativePath.replace(/\.(md|toml)$/, '');
  return withoutExtension
    .split(/[\\/]/)
    .map((segment) => segment.replaceAll(':', '_'))
    .join(':');
}

/**
 * The text of a TOML command as its strings decode: every basic-string escape (`\uXXXX`,
 * `\UXXXXXXXX`, `\"`, `\\`, the line-ending backslash, …) applied everywhere in the file. Exact for
 * basic strings; a literal string's text is kept where an escape is unknown, so an injection written
 * in any string of the file survives into the result (a superset of what Qwen's parser yields).
 */
export function decodeTomlStrings(text: string): string {
  const simple: Record<string, string> = {
    b: '\b',
    t: '\t',
    n: '\n',
    f: '\f',
    r: '\r',
    e: '\x1b',
    '"': '"',
    '\\': '\\',
  };
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = text[i + 1];
    if (next !== undefined && Object.hasOwn(simple, next)) {
      out += simple[next];
      i++;
      continue;
    }
    const hex = next === 'u' ? 4 : next === 'U' ? 8 : next === 'x' ? 2 : 0;
    if (hex > 0) {
      const digits = text.slice(i + 2, i + 2 + hex);
      const code = /^[0-9a-fA-F]+$/.test(digits) && digits.length === hex ? Number.parseInt(digits, 16) : NaN;
      if (!Number.isNaN(code) && code <= 0x10ffff) {
        out += String.fromCodePoint(code);
        i += 1 + hex;
        continue;
      }
    }
    // A line-ending backslash drops itself and all whitespace up to the next non-space character.
    const rest = /^[ \t]*\r?\n[ \t\r\n]*/.exec(text.slice(i + 1));
    if (rest !== null) {
      i += rest[0].length;
      continue;
    }
    out += char;
  }
  return out;
}

/**
 * The contents of every `trigger…}` injection with balanced braces, as Qwen's parser extracts them
 * (trimmed); an unclosed one is an error in Qwen, which then runs nothing — returned as found so
 * far.
 */
export function injections(text: string, trigger: string): string[] {
  const found: string[] = [];
  for (let start = text.indexOf(trigger); start !== -1; start = text.indexOf(trigger, start + 1)) {
    let depth = 1;
    for (let i = start + trigger.length; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        found.push(text.slice(start + trigger.length, i).trim());
        start = i;
        break;
      }
    }
    if (depth !== 0) break;
  }
  return found;
}
