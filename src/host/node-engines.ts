// Does a Node version satisfy a package's `engines.node` range? The npm range grammar as packages use
// it for engines: `||` alternatives of space-separated comparators (`>=`, `>`, `<=`, `<`, `=`), caret
// and tilde ranges, x-ranges (`22`, `22.x`, `*`) and hyphen ranges. Pure; undefined for a range it
// cannot read (the caller then says it could not judge, rather than guessing).

type Version = readonly [number, number, number];

function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text.trim());
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** A partial version (`22`, `22.1`, `22.x`, `*`): the given parts, undefined for each wildcard. */
function parsePartial(text: string): (number | undefined)[] | undefined {
  const parts = text.replace(/^v/, '').split('.');
  if (parts.length > 3 || parts.some((p) => !/^(\d+|x|X|\*)$/.test(p))) return undefined;
  const out = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : undefined));
  // After a wildcard every part is one.
  const first = out.indexOf(undefined);
  return first === -1 ? out : out.map((p, i) => (i >= first ? undefined : p));
}

type Test = (v: Version) => boolean;

/** The lowest version a partial names, and the first version past it (undefined: no upper bound). */
function bounds(partial: (number | undefined)[]): { low: Version; high?: Version } {
  const [major, minor, patch] = partial;
  if (major === undefined) return { low: [0, 0, 0] };
  if (minor === undefined) return { low: [major, 0, 0], high: [major + 1, 0, 0] };
  if (patch === undefined) return { low: [major, minor, 0], high: [major, minor + 1, 0] };
  return { low: [major, minor, patch], high: [major, minor, patch + 1] };
}

function comparator(text: string): Test | undefined {
  const match = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(text);
  if (match === null) return undefined;
  const op = match[1] ?? '';
  const partial = parsePartial(match[2]!);
  if (partial === undefined) return undefined;
  const { low, high } = bounds(partial);
  const [major, minor] = partial;
  switch (op) {
    case '>=':
      return (v) => compare(v, low) >= 0;
    case '<':
      return (v) => compare(v, low) < 0;
    case '>':
      return (v) => (high === undefined ? false : compare(v, high) >= 0);
    case '<=':
      return (v) => high === undefined || compare(v, high) < 0;
    case '^': {
      // The leftmost non-zero part may not change.
      const top: Version | undefined =
        major === undefined
          ? undefined
          : major > 0 || minor === undefined
            ? [major + 1, 0, 0]
            : minor > 0 || partial[2] === undefined
              ? [0, minor + 1, 0]
              : [0, 0, partial[2]! + 1];
      return (v) => compare(v, low) >= 0 && (top === undefined || compare(v, top) < 0);
    }
    case '~': {
      const top: Version | undefined =
        major === undefined ? undefined : minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0];
      return (v) => compare(v, low) >= 0 && (top === undefined || compare(v, top) < 0);
    }
    default:
      return (v) => compare(v, low) >= 0 && (high === undefined || compare(v, high) < 0);
  }
}

function comparatorSet(text: string): Test | undefined {
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen !== null) {
    const from = comparator(`>=${hyphen[1]}`);
    const to = comparator(`<=${hyphen[2]}`);
    return from === undefined || to === undefined ? undefined : (v) => from(v) && to(v);
  }
  // `>= 22` is one comparator: glue an operator to the version after it.
  const tokens = text
    .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
    .split(/\s+/)
    .filter((t) => t !== '');
  const tests = tokens.map(comparator);
  if (tests.length === 0) return () => true;
  if (tests.some((t) => t === undefined)) return undefined;
  return (v) => tests.every((t) => t!(v));
}

/** Whether `version` (e.g. `v20.20.2`) satisfies `range` (e.g. `>=22.0.0`); undefined when either is unreadable. */
export function satisfiesEngines(version: string, range: string): boolean | undefined {
  const v = parseVersion(version);
  if (v === undefined) return undefined;
  const sets = range.split('||').map((alternative) => comparatorSet(alternative.trim()));
  if (sets.some((s) => s === undefined)) return undefined;
  return sets.some((s) => s!(v));
}
