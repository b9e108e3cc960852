// The folder import graph (`npm run check:imports`, run by CI and by test/unit/layout/import-graph.test.ts).
// A folder is a top-level folder under src/ (`src/config`), or `launcher`, or `scripts`; a target outside
// those (policies/, templates/, test/, package.json) is a leaf named by its first path segment. Every
// relative import, re-export, dynamic import() and require() counts, type-only imports included (a type
// is a dependency of the design). Fails when folders import each other (any cycle, not only pairs); when
// the sub-folders of any folder (src/deploy/render, scripts/bench, …) do, also through the files directly
// in that folder; when anything outside test/ imports test/; and when a file the runtimes reach, directly
// or through other folders, lives in src/deploy, src/cli or launcher/.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The roots scanned for importing files; test/ is not scanned (tests may import any layer). */
export const SCANNED_ROOTS = ['src', 'launcher', 'scripts'] as const;
/** Tests may import every layer, so nothing outside them may import them (scripts/ included). */
export const TEST_FOLDER = 'test';
/** The bundled runtimes (hooks, MCP server) must stay independent of the admin toolkit. */
export const RUNTIME_FOLDER = 'src/runtimes';
export const FORBIDDEN_FOR_RUNTIMES = ['src/deploy', 'src/cli', 'launcher'] as const;

const SOURCE_FILE = /\.(ts|mts|cts|mjs|cjs|js)$/;

export interface ImportEdge {
  /** Importing file, relative to the root, `/`-separated. */
  from: string;
  /** Imported file (resolved, `.js` → `.ts` when the source is TypeScript). */
  to: string;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

/** The folder a repository-relative path belongs to (see the header). */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src' && parts.length > 2) return `src/${parts[1]}`;
  return parts[0]!;
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}

function listSources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(full));
    else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** `./x.js` as written in TypeScript sources names `./x.ts`; anything else resolves as written. */
function resolveSpecifier(importer: string, specifier: string): string {
  const target = resolve(dirname(importer), specifier);
  if (existsSync(target) && statSync(target).isFile()) return target;
  for (const [written, source] of [
    ['.js', '.ts'],
    ['.mjs', '.mts'],
    ['.cjs', '.cts'],
  ] as const) {
    if (target.endsWith(written)) {
      const candidate = target.slice(0, -written.length) + source;
      if (existsSync(candidate)) return candidate;
    }
  }
  for (const ext of ['.ts', '/index.ts']) if (existsSync(target + ext)) return target + ext;
  return target;
}

/** Every relative import of every scanned file under `root`. */
export function scanImportGraph(root: string): ImportGraph {
  const files = SCANNED_ROOTS.flatMap((dir) => listSources(join(root, dir))).sort();
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      // Packages and node: builtins are not folders of this repository.
      if (!fileName.startsWith('./') && !fileName.startsWith('../')) continue;
      edges.push({
        from: toPosix(relative(root, file)),
        to: toPosix(relative(root, resolveSpecifier(file, fileName))),
      });
    }
  }
  return { files: files.map((f) => toPosix(relative(root, f))), edges };
}

/** folder → folder → number of import statements crossing from the first into the second. */
export function folderEdges(graph: ImportGraph): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const { from, to } of graph.edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    const row = counts.get(a) ?? new Map<string, number>();
    row.set(b, (row.get(b) ?? 0) + 1);
    counts.set(a, row);
  }
  return counts;
}

/** Every folder that imports or is imported. */
function folders(edges: Map<string, Map<string, number>>): Set<string> {
  const nodes = new Set<string>();
  for (const [a, row] of edges) {
    nodes.add(a);
    for (const b of row.keys()) nodes.add(b);
  }
  return nodes;
}

/** The folder cycles (strongly connected components of more than one folder), each sorted. */
export function folderCycles(edges: Map<string, Map<string, number>>): string[][] {
  const nodes = folders(edges);
  // Tarjan's algorithm: the graph has a few dozen nodes, recursion depth is no concern.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!indexOf.has(v)) visit(v);
  return components.sort((x, y) => x[0]!.localeCompare(y[0]!));
}

/**
 * Files the runtimes reach (following every import) that live in a forbidden folder, each with the
 * chain from the runtime file that leads there.
 */
export function runtimeViolations(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of graph.edges) next.set(from, [...(next.get(from) ?? []), to]);
  const forbidden = (file: string) => (FORBIDDEN_FOR_RUNTIMES as readonly string[]).includes(folderOf(file));
  const via = new Map<string, string[]>();
  const queue: string[] = [];
  for (const file of graph.files) {
    if (folderOf(file) !== RUNTIME_FOLDER) continue;
    via.set(file, [file]);
    queue.push(file);
  }
  const found: string[][] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of next.get(file) ?? []) {
      if (via.has(target)) continue;
      const chain = [...via.get(file)!, target];
      via.set(target, chain);
      if (forbidden(target)) found.push(chain);
      else queue.push(target);
    }
  }
  return found;
}

/** Folders in layer order: each imports only folders listed before it (leaves first). */
export function layers(edges: Map<string, Map<string, number>>): string[][] {
  const nodes = folders(edges);
  const placed = new Set<string>();
  const out: string[][] = [];
  while (placed.size < nodes.size) {
    const layer = [...nodes]
      .filter((n) => !placed.has(n) && [...(edges.get(n)?.keys() ?? [])].every((d) => placed.has(d)))
      .sort();
    // A cycle leaves folders that never become placeable; folderCycles names them.
    if (layer.length === 0) break;
    for (const n of layer) placed.add(n);
    out.push(layer);
  }
  return out;
}

const count = (edges: Map<string, Map<string, number>>, a: string, b: string) => edges.get(a)?.get(b) ?? 0;

/**
 * One problem line per cycle: the pairs that import each other, or else one loop through them;
 * `what` names the nodes (`folders`, `sub-folders of src/deploy`).
 */
export function describeCycle(
  cycle: readonly string[],
  edges: Map<string, Map<string, number>>,
  what = 'folders',
): string {
  const pairs: string[] = [];
  for (const a of cycle)
    for (const b of cycle)
      if (a < b && count(edges, a, b) > 0 && count(edges, b, a) > 0)
        pairs.push(`${a} ⇄ ${b} (${count(edges, a, b)} and ${count(edges, b, a)} imports)`);
  if (pairs.length > 0) return `${what} import each other: ${pairs.join('; ')}`;
  // No direct pair: walk inside the cycle until a folder repeats.
  const members = new Set(cycle);
  const path = [cycle[0]!];
  while (path.indexOf(path.at(-1)!) === path.length - 1) {
    const next = [...(edges.get(path.at(-1)!)?.keys() ?? [])].filter((b) => members.has(b)).sort()[0]!;
    path.push(next);
  }
  const loop = path.slice(path.indexOf(path.at(-1)!));
  return `${what} import each other through a loop: ${loop.join(' → ')}`;
}

/** Every directory of the scanned files but `src` (whose sub-folders are the folders): `scripts`, `src/deploy`, `src/deploy/verify`… */
function parentFolders(graph: ImportGraph): string[] {
  const dirs = new Set<string>();
  for (const file of graph.files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  dirs.delete('src');
  return [...dirs].sort();
}

/**
 * Inside `parent`: sub-folder → sub-folder → number of imports from the first that reach the second,
 * directly or through files that sit directly in `parent` (they belong to no sub-folder, so a route
 * through them still joins the two).
 */
export function subFolderEdges(graph: ImportGraph, parent: string): Map<string, Map<string, number>> {
  const prefix = `${parent}/`;
  /** The sub-folder of `parent` holding `file`; null for a file directly in `parent`; undefined outside. */
  const subFolderOf = (file: string): string | null | undefined => {
    if (!file.startsWith(prefix)) return undefined;
    const rest = file.slice(prefix.length).split('/');
    return rest.length > 1 ? `${parent}/${rest[0]}` : null;
  };
  const next = new Map<string, string[]>();
  for (const { from, to } of graph.edges) next.set(from, [...(next.get(from) ?? []), to]);
  /** The sub-folders an import of `target` reaches (through `parent`'s own files). */
  const reached = (target: string): Set<string> => {
    const out = new Set<string>();
    const seen = new Set<string>();
    const queue = [target];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const sub = subFolderOf(file);
      if (sub === null) queue.push(...(next.get(file) ?? []));
      else if (sub !== undefined) out.add(sub);
    }
    return out;
  };
  const counts = new Map<string, Map<string, number>>();
  for (const { from, to } of graph.edges) {
    const a = subFolderOf(from);
    if (a === null || a === undefined) continue;
    for (const b of reached(to)) {
      if (b === a) continue;
      const row = counts.get(a) ?? new Map<string, number>();
      row.set(b, (row.get(b) ?? 0) + 1);
      counts.set(a, row);
    }
  }
  return counts;
}

/** The sub-folder graphs of every folder that has sub-folders importing each other at all. */
export function subFolderGraphs(graph: ImportGraph): Map<string, Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, Map<string, number>>>();
  for (const parent of parentFolders(graph)) {
    const edges = subFolderEdges(graph, parent);
    if (edges.size > 0) out.set(parent, edges);
  }
  return out;
}

/** Imports from outside test/ into test/: `from → to` each. */
export function testImports(graph: ImportGraph): ImportEdge[] {
  return graph.edges.filter(({ from, to }) => folderOf(from) !== TEST_FOLDER && folderOf(to) === TEST_FOLDER);
}

const countRows = (edges: Map<string, Map<string, number>>) => {
  const rows = [...edges].flatMap(([a, row]) => [...row].map(([b, n]) => [a, b, n] as const));
  return rows.sort((x, y) => x[0].localeCompare(y[0]) || x[1].localeCompare(y[1]));
};

export interface ImportReport {
  text: string;
  problems: string[];
}

/** The printed report and the problems that fail the check. */
export function importReport(graph: ImportGraph): ImportReport {
  const edges = folderEdges(graph);
  const subGraphs = subFolderGraphs(graph);
  const lines: string[] = [];
  const rows = countRows(edges);
  const subRows = [...subGraphs.values()].flatMap(countRows);
  const width = Math.max(0, ...[...rows, ...subRows].map(([a, b]) => `${a} → ${b}`.length));
  const table = ([a, b, n]: readonly [string, string, number]) =>
    `  ${`${a} → ${b}`.padEnd(width)}  ${String(n).padStart(3)}`;
  lines.push(`folder → folder import counts (${graph.files.length} files, ${rows.length} folder edges):`);
  lines.push(...rows.map(table));
  lines.push('layers, leaves first (a folder imports only folders of earlier layers):');
  layers(edges).forEach((layer, i) => {
    lines.push(`  ${i + 1}. ${layer.join(', ')}`);
  });
  lines.push(
    `sub-folder → sub-folder import counts inside a folder (through its own files too; ${subRows.length} edges):`,
  );
  lines.push(...subRows.map(table));
  lines.push('sub-folder layers, leaves first:');
  for (const [parent, subEdges] of subGraphs) {
    const named = layers(subEdges).map((layer) =>
      layer.map((sub) => sub.slice(parent.length + 1)).join(', '),
    );
    lines.push(`  ${parent}: ${named.map((layer, i) => `${i + 1}. ${layer}`).join('  ')}`);
  }
  const tests = testImports(graph);
  lines.push(`imports of test/ from outside it: ${tests.length}`);
  const problems: string[] = [];
  for (const cycle of folderCycles(edges)) problems.push(describeCycle(cycle, edges));
  for (const [parent, subEdges] of subGraphs) {
    for (const cycle of folderCycles(subEdges)) {
      problems.push(describeCycle(cycle, subEdges, `sub-folders of ${parent}`));
    }
  }
  for (const { from, to } of tests) {
    const problem = `${from} imports ${to}: nothing outside test/ may import test/ (move what both need out of it, docs/layout.md)`;
    if (!problems.includes(problem)) problems.push(problem);
  }
  for (const chain of runtimeViolations(graph)) {
    problems.push(
      `a runtime reaches ${folderOf(chain.at(-1)!)}: ${chain.join(' → ')} (runtimes may not depend on ${FORBIDDEN_FOR_RUNTIMES.join(', ')})`,
    );
  }
  return { text: lines.join('\n'), problems };
}

export const REPOSITORY_ROOT = fileURLToPath(new URL('..', import.meta.url));

function main(argv: readonly string[]): number {
  let root = REPOSITORY_ROOT;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root' && argv[i + 1] !== undefined) root = resolve(argv[++i]!);
    else {
      process.stderr.write(
        `import-graph: unknown argument ${JSON.stringify(argv[i])}; usage: import-graph [--root DIR]\n`,
      );
      return 2;
    }
  }
  const report = importReport(scanImportGraph(root));
  process.stdout.write(`${report.text}\n`);
  if (report.problems.length === 0) {
    process.stdout.write(
      `ok: no folder imports a folder that imports it back, nor a sub-folder a sibling; nothing outside test/ imports it; ${RUNTIME_FOLDER} reaches nothing in ${FORBIDDEN_FOR_RUNTIMES.join(', ')}\n`,
    );
    return 0;
  }
  for (const problem of report.problems) process.stderr.write(`error: ${problem}\n`);
  process.stderr.write(
    `import-graph: ${report.problems.length} problem(s); move the shared part into a lower folder (docs/layout.md)\n`,
  );
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
