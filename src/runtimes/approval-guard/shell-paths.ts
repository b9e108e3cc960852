import { resolve } from './host.js';

// The words of a shell line as bash splits them, and the paths a glob expands to, for the approval guard's rule on paths outside the
// repository (docs/admin.md, "A shell read outside the repository"). Pure: no I/O.

/**
 * The commands Qwen 0.24.4's read-only classifier may run with no dialog: its READ_ONLY_ROOT_COMMANDS
 * without `less` and `more`, which it always asks for (its sed, find, awk, git, sort, … sub-rules
 * only narrow the rest). A line made of these runs with no dialog in the default mode, whatever
 * paths it names. Any other first word, exactly as written (`CAT` and `/bin/cat` too), makes Qwen ask
 * for the whole line, showing it.
 */
export const QWEN_READ_ONLY_COMMANDS: ReadonlySet<string> = new Set(
  (
    'awk basename cat cd column cut df dirname du echo find git grep head ls printenv printf ps pwd rg ' +
    'ripgrep sed sort stat tail tree uniq wc which where whoami'
  ).split(' '),
);

// Words that open a compound command: Qwen classifies the whole line as unknown (it asks, also for
// the fragments its permission rules split out of it).
const COMPOUND = /^(?:for|while|until|if|case|select|function|coproc)$/;
// Words bash reads before a command's name.
const PREFIX = /^(?:\{|!|then|do|else|elif|time)$/;
// A name as bash runs it, with no quote or expansion: a program by name or by path.
const PLAIN_NAME = /^[\w./+-]+$/;
const ASSIGNMENT = /^[A-Za-z_]\w*=/;

/** One word as bash reads it: quotes and escapes removed, and whether the shell expands it. */
export interface ShellWord {
  /** As written in the command (shown to the user). */
  readonly raw: string;
  /** Quotes and backslashes removed. */
  readonly text: string;
  /** A `$` expansion or `$'…'`: bash may turn it into any path. */
  readonly expands: boolean;
  /** No quote, escape or expansion: what bash runs is `text`. */
  readonly plain: boolean;
  /** A redirection's file or descriptor (`2>/dev/null`, `< in`): never the command's name. */
  readonly redirect: boolean;
}

/**
 * The commands of `line`, each as its words. Split where bash splits commands (`;`, `&`, `|`, `(`,
 * `)`, a newline, a substitution's start) outside quotes and escapes; redirections end a word;
 * comments are dropped. Over-splitting only makes a command look like more commands, each judged.
 */
export function shellCommands(line: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: ShellWord[] = [];
  // After a `)` bash continues the outer command: the next word is no command's name.
  let continued = false;
  let raw = '';
  let text = '';
  let expands = false;
  let plain = true;
  let started = false;
  let redirect = false;
  const endWord = () => {
    if (started) words.push({ raw, text, expands, plain, redirect });
    if (started) redirect = false;
    raw = text = '';
    expands = false;
    plain = true;
    started = false;
  };
  const endCommand = (nextContinues = false) => {
    endWord();
    if (words.length > 0) commands.push({ words, continued });
    words = [];
    continued = nextContinues;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const next = line[i + 1] ?? '';
    if (c === "'" || (c === '$' && next === "'")) {
      // '…' is literal; $'…' decodes escapes (\x2f is a slash): counted as an expansion.
      const open = c === '$' ? i + 1 : i;
      const close = line.indexOf("'", open + 1);
      const end = close < 0 ? line.length : close;
      raw += line.slice(i, end + 1);
      text += line.slice(open + 1, end);
      if (c === '$') expands = true;
      plain = false;
      started = true;
      i = end;
    } else if (c === '"') {
      raw += c;
      plain = false;
      started = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        const d = line[i]!;
        raw += d;
        if (d === '\\' && i + 1 < line.length) {
          raw += line[++i];
          text += line[i];
        } else if (d === '`' || (d === '$' && line[i + 1] === '(')) {
          // A substitution inside quotes: its own commands, judged like the others.
          expands = true;
          endCommand();
        } else {
          if (d === '$' && /[\w{@*#?!$-]/.test(line[i + 1] ?? '')) expands = true;
          text += d;
        }
      }
      raw += '"';
    } else if (c === '\\') {
      if (next === '\n') {
        i++;
        continue;
      }
      raw += c + next;
      text += next;
      plain = false;
      started = true;
      i++;
    } else if (c === '#' && !started) {
      while (i + 1 < line.length && line[i + 1] !== '\n') i++;
    } else if (c === '`' || (c === '$' && next === '(')) {
      if (c === '$') i++;
      endCommand();
    } else if (c === '<' || c === '>' || (c === '&' && next === '>')) {
      // A redirection (>&2, <&0, >| and &> are not a background job or a pipe): a descriptor
      // written before it and the word after it are no command's name.
      if (/^\d+$/.test(text)) redirect = true;
      endWord();
      redirect = true;
      if (next === '&' || next === '|' || (c === '&' && next === '>')) i++;
    } else if (/[;&|()\n]/.test(c)) {
      endCommand(c === ')');
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      if (c === '$' && /[\w{@*#?!$-]/.test(next)) expands = true;
      raw += c;
      text += c;
      started = true;
    }
  }
  endCommand();
  return commands;
}

/** One command of a line: its words, and whether it continues an outer one after a `)`. */
export interface ShellCommand {
  readonly words: readonly ShellWord[];
  readonly continued: boolean;
}

function nameIndex(words: readonly ShellWord[]): number {
  let at = 0;
  while (at < words.length && (words[at]!.redirect || (words[at]!.plain && PREFIX.test(words[at]!.text))))
    at++;
  return at;
}

/** The word bash runs as the command (after `{`, `!`, `time`, redirections). */
export function commandName(words: readonly ShellWord[]): ShellWord | undefined {
  return words[nameIndex(words)];
}

// grep's, rg's, sed's and awk's first operand is a pattern or a program, not a file — unless an
// option gave one (-e, -f, --regexp, --file, --expression; rg --files and --type-list take none).
const SCRIPT_FIRST = /^(?:grep|rg|ripgrep|sed|awk)$/;
const SCRIPT_OPTION = /^(?:-[^-]*[ef]|--(?:regexp|file|expression|type-list))/;

/** That pattern or program word (`'/api/'` in `grep -n '/api/' src`), which names no file. */
export function scriptOperand(words: readonly ShellWord[]): ShellWord | undefined {
  const at = nameIndex(words);
  if (words[at]?.plain !== true || !SCRIPT_FIRST.test(words[at]!.text)) return undefined;
  let ended = false;
  for (const word of words.slice(at + 1)) {
    if (word.redirect) continue;
    if (!ended && word.text === '--') ended = true;
    else if (!ended && word.text.startsWith('-')) {
      if (SCRIPT_OPTION.test(word.text)) return undefined;
    } else return word;
  }
  return undefined;
}

/**
 * Whether Qwen asks before this command by itself, whatever it names: it starts with a plain name
 * its classifier does not read as read-only ("Always allow" for that program is the user's choice). Then a path in that
 * command is shown in Qwen's own dialog, and the guard's ask would be a second one.
 */
export function qwenAsksFor({ words, continued }: ShellCommand): boolean {
  if (continued) return false;
  const name = commandName(words);
  if (name === undefined || !name.plain || ASSIGNMENT.test(name.text)) return false;
  return PLAIN_NAME.test(name.text) && !QWEN_READ_ONLY_COMMANDS.has(name.text);
}

// Read-only to Qwen and reading no file: the paths they name are only printed.
const PRINTS_ONLY = /^(?:echo|printf|basename|dirname|which|where|pwd|whoami)$/;

/** Whether the command only prints the words it names (`echo /etc/passwd`). */
export function printsOnly({ words, continued }: ShellCommand): boolean {
  const name = commandName(words);
  return !continued && name?.plain === true && PRINTS_ONLY.test(name.text);
}

// Options that make a read-only command follow every link it meets while it walks a directory.
const FOLLOWS: Readonly<Record<string, RegExp>> = {
  grep: /^(?:-[A-Za-z]*R|--dereference-recursive$)/,
  rg: /^(?:-[A-Za-z]*L|--follow$)/,
  ripgrep: /^(?:-[A-Za-z]*L|--follow$)/,
  find: /^(?:-L|-follow)$/,
  tree: /^-[A-Za-z]*l/,
};

/** The option (`grep -R`, `rg -L`, `find -L`, `tree -l`) with which the command walks through links. */
export function followsLinks(words: readonly ShellWord[]): ShellWord | undefined {
  const at = nameIndex(words);
  const name = words[at];
  if (name?.plain !== true || !Object.hasOwn(FOLLOWS, name.text)) return undefined;
  const option = FOLLOWS[name.text]!;
  for (const word of words.slice(at + 1)) {
    if (word.text === '--') return undefined;
    if (option.test(word.text)) return word;
  }
  return undefined;
}

/** A compound command (`for`, `if`, `while`, …): Qwen classifies the whole line as unknown and asks. */
export function isCompound(commands: readonly ShellCommand[]): boolean {
  return commands.some(({ words }) => {
    const name = commandName(words);
    return name?.plain === true && COMPOUND.test(name.text);
  });
}

const GLOB_SEGMENT = /[*?[]/;
/** At most this many names are looked at for one glob; more asks. */
export const GLOB_LIMIT = 5000;

/**
 * A glob segment as a regular expression over one name (`*`, `?`). A bracket expression (`[a-z]`,
 * `[[:alpha:]]`, `[!x]`) matches any name: reading it as bash does is not needed to look wider.
 */
function segmentPattern(segment: string): RegExp {
  if (segment.includes('[')) return /^/;
  const source = segment
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|\\/\]]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 's');
}

/**
 * The paths bash expands the absolute glob `path` to (without globstar: `**` is `*`; a name starting
 * with `.` only for a segment that does), following links to directories as bash does; undefined
 * when more than GLOB_LIMIT names would have to be looked at.
 */
export function expandGlob(
  path: string,
  readdir: (dir: string) => readonly string[] | undefined,
): string[] | undefined {
  let current = ['/'];
  let seen = 0;
  for (const segment of path.split('/')) {
    if (segment === '') continue;
    if (!GLOB_SEGMENT.test(segment)) {
      current = current.map((dir) => resolve(dir, segment));
      continue;
    }
    const pattern = segmentPattern(segment);
    const next: string[] = [];
    // `.*` may match `.` and `..` too (bash before 5.2, or without globskipdots).
    const dots = segment.startsWith('.') ? ['.', '..'] : [];
    for (const dir of current) {
      for (const name of [...(readdir(dir) ?? []), ...dots]) {
        if (++seen > GLOB_LIMIT) return undefined;
        if ((segment.startsWith('.') || !name.startsWith('.')) && pattern.test(name))
          next.push(resolve(dir, name));
      }
    }
    current = next;
  }
  return current;
}
