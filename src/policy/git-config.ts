// The repository's git configuration, judged (policies/repository.json `gitConfig`, docs/repository.md#git).
// Qwen 0.24.4 runs git in the repository by itself at every start and runs the read-only git
// subcommands the model asks for without a confirmation, so a key that makes git run a program the
// repository names is code execution with Qwen's environment. Pure: the caller reads the files.
import repositoryPolicy from '../../policies/repository.json' with { type: 'json' };
import type { Refusal } from './repository.js';

export interface GitConfigPolicy {
  maxBytes: number;
  maxIndexBytes: number;
  keys: Readonly<Record<string, { why: string; harmless?: readonly string[]; booleans?: boolean }>>;
  hooks: Readonly<Record<string, string>>;
  /** Keys (lowercased) naming a file git reads and may print: it must lead to a file of the repository. */
  files: Readonly<Record<string, string>>;
}

export const GIT_CONFIG_POLICY: GitConfigPolicy = repositoryPolicy.gitConfig;

export interface GitConfigEntry {
  /** Lowercased. */
  section: string;
  /** As written (`[section "Sub"]` keeps its case; the old `[section.sub]` form is lowercased). */
  subsection: string | undefined;
  /** Lowercased. */
  name: string;
  /** Undefined for a bare key (git reads it as `true`). */
  value: string | undefined;
}

export type GitConfigParse = { entries: GitConfigEntry[] } | { error: string; line: number };

const NAME_CHAR = /[A-Za-z0-9-]/;
const SECTION_CHAR = /[A-Za-z0-9.-]/;

/**
 * Git's configuration syntax (config.c): `[section]`, `[section "sub"]`, `[section.sub]`, `name = value`
 * or a bare `name`, `#`/`;` comments, quotes, backslash escapes and continuation lines. Whatever git
 * itself would reject is an error here too (with its line), never a guess.
 */
export function parseGitConfig(text: string): GitConfigParse {
  const entries: GitConfigEntry[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let section: string | undefined;
  let subsection: string | undefined;
  const fail = (error: string): GitConfigParse => ({ error, line });
  const at = () => text[i];
  const skipComment = () => {
    while (i < text.length && at() !== '\n') i++;
  };
  while (i < text.length) {
    const c = at()!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' || c === ';') {
      skipComment();
      continue;
    }
    if (c === '[') {
      i++;
      let name = '';
      while (i < text.length && SECTION_CHAR.test(at()!)) name += text[i++];
      if (name === '') return fail('an empty or invalid section name');
      subsection = undefined;
      if (at() === ' ' || at() === '\t') {
        while (at() === ' ' || at() === '\t') i++;
        if (at() !== '"') return fail('a section header without a quoted subsection');
        i++;
        let sub = '';
        for (;;) {
          const s = text[i++];
          if (s === undefined || s === '\n') return fail('an unterminated subsection');
          if (s === '"') break;
          // git keeps the key as a C string: `[core "fsmonitor\0"] x = …` sets core.fsmonitor (git 2.39).
          if (s === '\0') return fail('a NUL byte in a subsection, which makes git read another key');
          if (s === '\\') {
            const e = text[i++];
            if (e === undefined || e === '\n') return fail('an unterminated subsection');
            sub += e;
          } else sub += s;
        }
        if (name.includes('.')) return fail('a dotted section name with a quoted subsection');
        subsection = sub;
        section = name.toLowerCase();
      } else {
        const dot = name.indexOf('.');
        section = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
        if (dot >= 0) subsection = name.slice(dot + 1).toLowerCase();
      }
      if (at() !== ']') return fail('a section header without its closing bracket');
      i++;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) return fail(`an unexpected character ${JSON.stringify(c)}`);
    if (section === undefined) return fail('a key before any section');
    let name = '';
    while (i < text.length && NAME_CHAR.test(at()!)) name += text[i++];
    while (at() === ' ' || at() === '\t') i++;
    if (at() === '\r') i++;
    if (i >= text.length || at() === '\n' || at() === '#' || at() === ';') {
      entries.push({ section, subsection, name: name.toLowerCase(), value: undefined });
      continue;
    }
    if (at() !== '=')
      return fail(`a key ${JSON.stringify(name)} followed by neither "=" nor the end of the line`);
    i++;
    let value = '';
    // Unquoted spaces at the end are dropped, inner ones kept (git keeps a run only when more follows).
    let pendingSpace = '';
    let quoted = false;
    for (;;) {
      const v = text[i];
      if (v === undefined) break;
      if (v === '\n') {
        if (quoted) return fail('an unterminated quote');
        break;
      }
      i++;
      if (!quoted && (v === ' ' || v === '\t' || v === '\r')) {
        // git 2.39 turns each unquoted blank (a lone CR too) after the first character of the value
        // into a space; before it (a quote or a continuation line is none) blanks are dropped.
        if (value.length > 0) pendingSpace += ' ';
        continue;
      }
      if (!quoted && (v === '#' || v === ';')) {
        skipComment();
        break;
      }
      value += pendingSpace;
      pendingSpace = '';
      if (v === '\\') {
        const e = text[i++];
        if (e === '\n') {
          line++;
          continue;
        }
        if (e === '\r' && text[i] === '\n') {
          i++;
          line++;
          continue;
        }
        const escaped = { n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"' }[e ?? ''];
        if (escaped === undefined) return fail('an invalid escape in a value');
        value += escaped;
      } else if (v === '"') quoted = !quoted;
      else value += v;
    }
    // git hands the value on as a C string: it ends at a NUL byte.
    const nul = value.indexOf('\0');
    entries.push({
      section,
      subsection,
      name: name.toLowerCase(),
      value: nul < 0 ? value : value.slice(0, nul),
    });
  }
  return { entries };
}

/** The key as git prints it: `section.name` or `section.<subsection>.name`. */
export function gitConfigKey(entry: GitConfigEntry): string {
  return entry.subsection === undefined
    ? `${entry.section}.${entry.name}`
    : `${entry.section}.${entry.subsection}.${entry.name}`;
}

function globMatch(pattern: string, text: string): boolean {
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's').test(text);
}

/** The policy pattern matching the entry (`filter.*.clean`, `pager.*`, `core.pager`), if any. */
export function matchingPattern(entry: GitConfigEntry, policy: GitConfigPolicy = GIT_CONFIG_POLICY) {
  for (const pattern of Object.keys(policy.keys)) {
    const parts = pattern.split('.');
    const section = parts[0]!.toLowerCase();
    const name = parts.at(-1)!.toLowerCase();
    // The middle is the subsection (`lfs.extension.*.clean`: `extension.<name>`), `*` any text in it;
    // compared without case, as git-lfs reads its keys.
    const sub = parts.length > 2 ? parts.slice(1, -1).join('.').toLowerCase() : undefined;
    if (entry.section !== section) continue;
    if (name !== '*' && entry.name !== name) continue;
    if (sub === undefined ? entry.subsection !== undefined : entry.subsection === undefined) continue;
    if (sub !== undefined && !globMatch(sub, entry.subsection!.toLowerCase())) continue;
    return pattern;
  }
  return undefined;
}

/**
 * Every key of one configuration file that makes git run a program the repository names, with why
 * and the fix; a file git could not parse refuses as a whole.
 */
export function decideGitConfig(
  file: string,
  text: string,
  policy: GitConfigPolicy = GIT_CONFIG_POLICY,
): Refusal[] {
  const parsed = parseGitConfig(text);
  if ('error' in parsed) {
    return [
      {
        file,
        key: `(line ${parsed.line})`,
        why: `it holds ${parsed.error}, so what git would run cannot be checked`,
        fix: 'correct the line (git config --file <file> --list shows what git reads)',
      },
    ];
  }
  const refused: Refusal[] = [];
  const seen = new Set<string>();
  for (const entry of parsed.entries) {
    const pattern = matchingPattern(entry, policy);
    if (pattern === undefined) continue;
    const rule = policy.keys[pattern]!;
    // A boolean (git's own program) or git-lfs from PATH names nothing of the repository's; compared
    // exactly as git does (strcasecmp): `"true "` is no boolean to git but a command it runs.
    const value = (entry.value ?? 'true').toLowerCase();
    if (rule.harmless?.some((h) => h.toLowerCase() === value)) continue;
    // git reads an integer as a boolean there (git_parse_maybe_bool): its own daemon or no pager.
    if (rule.booleans === true && entry.value !== undefined && isGitInteger(entry.value)) continue;
    const key = gitConfigKey(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    refused.push({
      file,
      key,
      why: rule.why,
      fix: `remove it (git config --file ${file} --unset-all ${key})`,
    });
  }
  return refused;
}

/**
 * git_parse_int (config.c): strtoimax in base 0 (leading C blanks, a sign, hex `0x`, octal `0`), one
 * unit k, m or g, the result within an int. Anything else is no integer to git.
 */
export function isGitInteger(value: string): boolean {
  const m = /^[ \t\n\v\f\r]*([-+]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgG]?)$/.exec(value);
  if (m === null) return false;
  const factor = { '': 1n, k: 1024n, m: 1024n ** 2n, g: 1024n ** 3n }[m[3]!.toLowerCase()]!;
  const digits = m[2]!;
  const magnitude = /^0[xX]/.test(digits)
    ? BigInt(digits)
    : digits.length > 1 && digits.startsWith('0')
      ? BigInt(`0o${digits.slice(1)}`)
      : BigInt(digits);
  // git's bound is INT_MAX either way (a negative too).
  return magnitude * factor < 2n ** 31n;
}

/** A hook the repository ships that git runs during commands Qwen runs without asking. */
export function decideGitHook(
  file: string,
  name: string,
  policy: GitConfigPolicy = GIT_CONFIG_POLICY,
): Refusal[] {
  const why = policy.hooks[name];
  return why === undefined ? [] : [{ file, key: '(the hook)', why, fix: 'remove it' }];
}

/**
 * Where git 2.39 takes a path-valued key (`git_config_pathname`) from, when it is not the repository:
 * `~` and `~user` a home directory, and a leading `%(prefix)/` git's own installation prefix
 * (measured: `core.hooksPath = %(prefix)/../proc/self/cwd/hk` ran the repository's hk/post-index-change
 * at `git diff`). Undefined: the value is read as written (relative to where git runs).
 */
export function gitPathElsewhere(value: string): string | undefined {
  if (value.startsWith('~')) return 'below a home directory';
  if (value.startsWith('%(prefix)/'))
    return "below git's own installation prefix (git reads a leading %(prefix)/ so)";
  return undefined;
}
