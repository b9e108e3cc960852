// Quoting for pinned paths in shell commands. Security-critical: Qwen substitutes `$VAR`/`${VAR}` in
// every settings string (hook commands included), so `$` and control characters are refused, not quoted.
import type { Platform } from '../base/platform.js';
import { TERMINAL_CONTROLS } from '../text/terminal-controls.js';

export type PathProblem = 'empty' | 'dollar' | 'control' | 'not-absolute';

/** Newline, NUL and every other C0/C1 control, DEL, U+2028 and U+2029: they end or truncate a command line. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** Why a pinned path is unusable, in words (see pinnedPathProblem). */
export const PATH_PROBLEM_TEXT: Readonly<Record<PathProblem, string>> = {
  empty: 'is empty',
  dollar: 'contains "$" (Qwen would substitute it)',
  control: 'contains a control character',
  'not-absolute': 'is not an absolute path',
};

/**
 * A string made safe to print on a terminal: quoted, with control characters escaped. Arguments
 * come from the caller and paths from files; neither may move the cursor or recolour the screen, nor reorder text (bidirectional controls).
 */
export function show(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/gu, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The C0 controls but tab and newline, the line and paragraph separators, and the terminal controls. */
const UNPRINTABLE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u2028\\u2029${TERMINAL_CONTROLS}]`, 'gu');

/**
 * Text of several lines made safe to print on a terminal: every control character but the newline and
 * the tab, DEL, C1 and the bidirectional controls written as `\uXXXX` (a path in a refusal came from
 * the caller or from a file).
 */
export function terminalText(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Why a pinned path cannot be used, or undefined when it can. */
export function pinnedPathProblem(p: string, platform: Platform): PathProblem | undefined {
  if (p === '') return 'empty';
  // `$` would be expanded by Qwen's settings substitution before the shell ever sees the quotes.
  if (p.includes('$')) return 'dollar';
  if (CONTROL_CHARACTER.test(p)) return 'control';
  const absolute = platform === 'posix' ? p.startsWith('/') : /^[A-Za-z]:\\/.test(p) || p.startsWith('\\\\');
  if (!absolute) return 'not-absolute';
  return undefined;
}

/** POSIX single quotes: everything literal; a `'` becomes `'\''`. */
export function posixQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** PowerShell single-quoted string: everything literal; `'` (and its typographic forms) doubled. */
export function powershellQuote(s: string): string {
  // PowerShell treats U+2018, U+2019, U+201A and U+201B as single quotes too.
  return `'${s.replace(/['\u2018\u2019\u201a\u201b]/gu, (q) => q + q)}'`;
}

/** A file mode's permission bits as four octal digits (`0644`, `1777`). */
export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
