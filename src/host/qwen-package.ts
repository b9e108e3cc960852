// The pinned Qwen package on this machine, judged the same way by `verify` and by the launcher before
// every start: cli.js loads over a thousand sibling files (chunks, workers, vendored binaries), so
// whoever can write any of them changes what Qwen runs, hooks included. Every entry must be owned by
// root or the administrator and not writable by group or others (StrictModes, for the whole tree).
// So must every package Qwen imports from outside its own directory: npm hoists its dependencies
// beside it (`<prefix>/node_modules/@lydell/node-pty`, whose index.js Qwen 0.24.4 loads for every
// shell command), and Node finds them by walking up the node_modules directories.
import { posixQuote, show } from '../policy/quote.js';
import { DIRECTORY, FILE_TYPE, GROUP_OR_OTHER_WRITE, StrictModes, SYMBOLIC_LINK } from './strict-modes.js';

/** The npm package `qwenCli` must sit in for its sibling files to be known. */
export const QWEN_PACKAGE_NAME = '@qwen-code/qwen-code';
/** The walk stops here: an npm install of Qwen 0.24.4 has about 1400 entries. */
export const QWEN_TREE_MAX_ENTRIES = 100_000;

export interface QwenPackageStat {
  uid: number;
  mode: number;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface QwenPackageFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  lstatSync(path: string): QwenPackageStat;
  statSync(path: string): QwenPackageStat;
  /** Undefined for a path that does not exist: no error is built (resolvePackageDir asks ~75 of them per launch). */
  statSync(path: string, options: { throwIfNoEntry: false }): QwenPackageStat | undefined;
  readdirSync(path: string): string[];
  /** With it, every symbolic link met is judged by its whole resolution (StrictModes) and a linked directory is walked. */
  readlinkSync?(path: string): string;
}

/** What the walk found under the directory of the pinned `qwenCli`. */
export type QwenPackageFact =
  | { kind: 'absent'; root: string }
  | { kind: 'not-a-package'; root: string }
  | {
      kind: 'walked';
      root: string;
      /** package.json `version`, when it is a string. */
      version?: string | undefined;
      /** package.json `engines.node`, when it is a string: the Node versions Qwen declares it runs on. */
      enginesNode?: string | undefined;
      /** False when the directory is not the Qwen package (walked only on request). */
      qwenPackage: boolean;
      entries: number;
      truncated: boolean;
      /** Entries writable by group or others: how many, and the first one met (with the tree it is in). */
      writable: { count: number; first?: { path: string; mode: number; tree: string } };
      /** Every owning uid: how many entries it owns, and the first one met (with the tree it is in). */
      owners: ReadonlyMap<number, { count: number; first: string; tree: string }>;
      /** The packages Qwen imports that sit outside `root` (walked too), by the directory Node loads. */
      dependencies: readonly string[];
      /**
       * StrictModes problems of the links met (every directory up to `/` of where each one leads): a
       * link's target is what Qwen loads, so whoever can replace it there changes what Qwen runs.
       */
      linkProblems: readonly { link: string; problem: string }[];
    };

/** package.json's dependencies and optionalDependencies of the package in `dir` (none when unreadable). */
function dependencyNames(dir: string, fs: Pick<QwenPackageFs, 'readFileSync'>): string[] {
  let parsed: { dependencies?: unknown; optionalDependencies?: unknown } = {};
  try {
    parsed = JSON.parse(fs.readFileSync(`${dir}/package.json`, 'utf8')) as typeof parsed;
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const map of [parsed.dependencies, parsed.optionalDependencies]) {
    if (map !== null && typeof map === 'object') for (const name of Object.keys(map)) names.add(name);
  }
  // Only a plain npm name can be a directory under node_modules (no `..`, no absolute path).
  return [...names].filter((name) => /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)).sort();
}

/**
 * The directory Node loads package `name` from when imported by a file of `from`: the first
 * `<ancestor>/node_modules/<name>` that exists, from `from` up to `/` (Node's own walk, which skips
 * an ancestor that is itself a node_modules directory).
 */
export function resolvePackageDir(
  from: string,
  name: string,
  fs: Pick<QwenPackageFs, 'statSync'>,
): string | undefined {
  let dir = from;
  for (;;) {
    if (!dir.endsWith('/node_modules')) {
      const candidate = `${dir === '/' ? '' : dir}/node_modules/${name}`;
      try {
        if (fs.statSync(candidate, { throwIfNoEntry: false })?.isDirectory() === true) return candidate;
      } catch {
        // unreadable here (not a directory on the way, no permission): one level up
      }
    }
    if (dir === '/') return undefined;
    dir = dirname(dir);
  }
}

function dirname(file: string): string {
  const cut = file.lastIndexOf('/');
  return cut <= 0 ? '/' : file.slice(0, cut);
}

/** What package.json in `root` says: whether it is the Qwen package, and then its version string. */
function packageIdentity(
  root: string,
  fs: Pick<QwenPackageFs, 'readFileSync'>,
): { qwenPackage: boolean; version?: string | undefined; enginesNode?: string | undefined } {
  let parsed: { name?: unknown; version?: unknown; engines?: { node?: unknown } } = {};
  try {
    parsed = JSON.parse(fs.readFileSync(`${root}/package.json`, 'utf8')) as typeof parsed;
  } catch {
    // no package manifest we know
  }
  if (parsed.name !== QWEN_PACKAGE_NAME) return { qwenPackage: false };
  const enginesNode = typeof parsed.engines?.node === 'string' ? parsed.engines.node : undefined;
  return {
    qwenPackage: true,
    version: typeof parsed.version === 'string' ? parsed.version : undefined,
    ...(enginesNode === undefined ? {} : { enginesNode }),
  };
}

/** What package.json of the Qwen package around `qwenCli` says (render and plan: no walk). */
export function qwenPackageInfo(
  qwenCli: string,
  fs: Pick<QwenPackageFs, 'readFileSync'>,
): { qwenPackage: boolean; root: string; version?: string | undefined; enginesNode?: string | undefined } {
  const root = dirname(qwenCli);
  return { root, ...packageIdentity(root, fs) };
}

/** The version of the Qwen package the pinned `qwenCli` sits in, without walking it (render and plan). */
export function qwenPackageVersion(
  qwenCli: string,
  fs: Pick<QwenPackageFs, 'readFileSync'>,
): string | undefined {
  return packageIdentity(dirname(qwenCli), fs).version;
}

/**
 * Walks the package around `qwenCli` (lstat; a symlink is judged by its target, not followed). A
 * directory that is not the Qwen package is reported as such — or, with `walkAnyDirectory` (the
 * launcher: whatever sits beside cli.js is what it loads), walked all the same.
 */
export function walkQwenPackage(
  qwenCli: string,
  fs: QwenPackageFs,
  options: {
    walkAnyDirectory?: boolean /** Entries judged elsewhere (still walked into). */;
    skip?: ReadonlySet<string>;
    /** The administrator who rendered (trusted as an owner beside root, for the links' StrictModes). */
    adminUid?: number;
  } = {},
): QwenPackageFact {
  const root = dirname(qwenCli);
  try {
    fs.statSync(qwenCli);
  } catch {
    return { kind: 'absent', root };
  }
  const { qwenPackage, version, enginesNode } = packageIdentity(root, fs);
  if (!qwenPackage && options.walkAnyDirectory !== true) return { kind: 'not-a-package', root };
  const owners = new Map<number, { count: number; first: string; tree: string }>();
  const writable: { count: number; first?: { path: string; mode: number; tree: string } } = { count: 0 };
  let count = 0;
  let truncated = false;
  const readlink = fs.readlinkSync?.bind(fs);
  const strict =
    readlink === undefined
      ? undefined
      : new StrictModes(options.adminUid ?? 0, { lstatSync: (p) => fs.lstatSync(p), readlinkSync: readlink });
  const walked: string[] = [root];
  const inWalked = (path: string) => walked.some((tree) => path === tree || path.startsWith(`${tree}/`));
  const linkedDirs: string[] = [];
  const linkProblems: { link: string; problem: string }[] = [];
  const walkTree = (tree: string): void => {
    const stack = [tree];
    while (stack.length > 0) {
      if (count >= QWEN_TREE_MAX_ENTRIES) {
        truncated = true;
        return;
      }
      const entry = stack.pop()!;
      let stat: QwenPackageStat;
      let directory: boolean;
      try {
        const link = fs.lstatSync(entry);
        // The type read off the mode, not through the Stats methods: ~1400 entries per launch made
        // those hot enough for V8's optimizing compiler (docs/performance.md, "The launcher").
        const type = link.mode & FILE_TYPE;
        const isLink = type === SYMBOLIC_LINK;
        // A dependency's own directory may be a link (npm link): Node loads through it, so walk it.
        directory =
          type === DIRECTORY || (entry === tree && tree !== root && fs.statSync(entry).isDirectory());
        stat = isLink ? fs.statSync(entry) : link;
        // A link is judged by where it leads, every directory up to `/` (a file in a directory anyone
        // may write is replaced there), and a linked directory is walked at its real path.
        if (isLink && strict !== undefined) {
          const before = strict.problems().length;
          const chain = strict.checkChain(entry);
          // The target itself is judged below with the walk's own rule (its stat); the way to it here.
          const target = chain.kind === 'ok' ? `${show(chain.realPath)} ` : undefined;
          for (const problem of strict.problems().slice(before)) {
            if (target === undefined || !problem.startsWith(target))
              linkProblems.push({ link: entry, problem });
          }
          if (chain.kind === 'ok' && stat.isDirectory() && !inWalked(chain.realPath)) {
            linkedDirs.push(chain.realPath);
          }
        }
      } catch {
        continue;
      }
      count++;
      if (options.skip?.has(entry) !== true) {
        const owned = owners.get(stat.uid);
        if (owned === undefined) owners.set(stat.uid, { count: 1, first: entry, tree });
        else owned.count++;
        if ((stat.mode & GROUP_OR_OTHER_WRITE) !== 0) {
          writable.count++;
          writable.first ??= { path: entry, mode: stat.mode & 0o777, tree };
        }
      }
      if (directory) {
        let names: string[] = [];
        try {
          names = fs.readdirSync(entry);
        } catch {
          // an unreadable directory: its entries stay unchecked, and the directory itself was judged
        }
        for (const child of names.sort().reverse()) stack.push(`${entry}/${child}`);
      }
    }
  };
  const walkWithLinks = (tree: string): void => {
    walked.push(tree);
    walkTree(tree);
    while (linkedDirs.length > 0) {
      const dir = linkedDirs.shift()!;
      if (inWalked(dir)) continue;
      walked.push(dir);
      walkTree(dir);
    }
  };
  walkWithLinks(root);
  // What Qwen imports, and what those import, found where Node finds it: outside root, walked too.
  const dependencies: string[] = [];
  const seen = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const from = pending.shift()!;
    for (const name of dependencyNames(from, fs)) {
      const dir = resolvePackageDir(from, name, fs);
      if (dir === undefined || seen.has(dir)) continue;
      seen.add(dir);
      pending.push(dir);
      if (dir.startsWith(`${root}/`)) continue;
      dependencies.push(dir);
      walkWithLinks(dir);
    }
  }
  return {
    kind: 'walked',
    root,
    version,
    ...(enginesNode === undefined ? {} : { enginesNode }),
    qwenPackage,
    entries: count,
    truncated,
    writable,
    owners,
    dependencies,
    linkProblems,
  };
}

const entries = (n: number) => (n === 1 ? '1 entry' : `${n} entries`);

/** `, in <dir>, a package Qwen imports` (or where a link leads) when the entry is outside the package. */
function importedBy(
  fact: Extract<QwenPackageFact, { kind: 'walked' }>,
  tree: string,
  show: (value: string) => string,
  open = '',
): string {
  if (tree === fact.root) return '';
  const what = fact.dependencies.includes(tree) ? 'a package Qwen imports' : 'where a link of it leads';
  const text = `in ${show(tree)}, ${what}`;
  return open === '' ? `, ${text}` : `${open}${text})`;
}

/** The package, and the dependency outside it the example entry is in (named once it is fixed, the next). */
function fixTrees(fact: Extract<QwenPackageFact, { kind: 'walked' }>, tree: string): string {
  return (tree === fact.root ? [fact.root] : [fact.root, tree]).map(posixQuote).join(' ');
}

/** The ownership and mode problems of a walked package, one line each (shown as verify and the launcher print them). */
export function qwenPackageProblems(
  fact: Extract<QwenPackageFact, { kind: 'walked' }>,
  adminUid: number,
  show: (value: string) => string,
): string[] {
  const problems: string[] = [];
  // Quoted only when there is a problem to name: show()'s first call compiles its pattern, at each start.
  const root = () => show(fact.root);
  if (fact.writable.first !== undefined) {
    const { path, mode, tree } = fact.writable.first;
    problems.push(
      `Qwen's install ${root()} has ${entries(fact.writable.count)} writable by group or others, e.g. ${show(path)} (mode ${mode.toString(8)}${importedBy(fact, tree, show)}); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w ${fixTrees(fact, tree)}`,
    );
  }
  for (const { link, problem } of fact.linkProblems) {
    problems.push(
      `the link ${show(link)} of Qwen's install ${root()} leads to what Qwen loads, but ${problem}`,
    );
  }
  const trusted = adminUid === 0 ? 'root' : `root or the administrator (uid ${adminUid})`;
  for (const [uid, owned] of [...fact.owners].sort(([a], [b]) => a - b)) {
    // Root and the administrator who rendered the install are the only owners trusted (StrictModes).
    if (uid === 0 || uid === adminUid) continue;
    problems.push(
      `Qwen's install ${root()} has ${entries(owned.count)} owned by uid ${uid}, not ${trusted}, e.g. ${show(owned.first)}${importedBy(fact, owned.tree, show, ' (')}; fix: chown -R root ${fixTrees(fact, owned.tree)}`,
    );
  }
  return problems;
}

export function qwenPackageSummary(
  fact: Extract<QwenPackageFact, { kind: 'walked' }>,
  adminUid: number,
  show: (value: string) => string,
): string {
  const trusted = adminUid === 0 ? 'root' : `root or the administrator (uid ${adminUid})`;
  const deps =
    fact.dependencies.length === 0
      ? ''
      : ` (with ${fact.dependencies.length} package(s) it imports from beside it)`;
  return `Qwen's install ${show(fact.root)}${deps}: ${entries(fact.entries)}, all owned by ${trusted} and not writable by group or others`;
}
