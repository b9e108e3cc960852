// Reads and writes in Qwen's own directories, which Qwen 0.24.4 allows with no dialog.
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';
import { isReadTool, READ_TOOLS } from './file-tools.js';
import { type GuardHost, ownTempDir, qwenDirsOf, relative, resolve, within } from './host.js';

// glob's pattern is joined to its directory: an absolute pattern or a `..` step leaves it.
const PATTERN_LEAVES = /^(?:[\\/]|[a-z]:)|(?:^|[\\/])\.\.(?:[\\/]|$)/i;

export const OUTSIDE_REASON =
  "This tool reads outside the repository, in Qwen's own directories (every project's prompt logs " +
  'and saved output), which Qwen reads without asking. Path: ';

/**
 * Where a file tool reads, if Qwen would read it with no dialog outside the repository: in its own
 * directories (`qwenDirs`: QWEN_RUNTIME_DIR, QWEN_HOME; all outside when none is known), as written
 * or through a link (`realpath`: the nearest existing ancestor resolved, the rest appended), or by a
 * glob pattern that steps out. Elsewhere outside Qwen asks by itself, and a second ask would be a
 * second dialog (measured). Qwen's temporary directory for this repository
 * (`<runtime>/tmp/<sha256(root)>`, where it saves long tool output and tells the model to read it) is
 * not asked for.
 */
export function readsOutside(
  input: Record<string, unknown>,
  root: string,
  host: GuardHost,
): string | undefined {
  const { realpath } = host;
  const fields = isReadTool(input.tool_name) ? READ_TOOLS[input.tool_name] : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  const args = input.tool_input;
  if (input.tool_name === 'glob' && typeof args.pattern === 'string' && PATTERN_LEAVES.test(args.pattern))
    return OUTSIDE_REASON + renderContentForDisplay(args.pattern);
  const realRoot = realpath(root);
  const qwenDirs = qwenDirsOf(host);
  for (const field of fields) {
    const value = args[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') return OUTSIDE_REASON + renderContentForDisplay(JSON.stringify(value));
    const path = resolve(root, value);
    const real = realpath(path);
    if (within(root, path) && within(realRoot, real)) continue;
    const own = ownTempDir(root, host);
    if (own !== undefined && within(own, path) && within(realpath(own), real)) continue;
    if (qwenDirs.length > 0 && !qwenDirs.some((dir) => within(dir, path) || within(realpath(dir), real)))
      continue;
    return OUTSIDE_REASON + renderContentForDisplay(value);
  }
  return undefined;
}

/**
 * Qwen 0.24.4's write_file and edit run with no dialog in its auto-memory directories
 * (`<dir>/memories/`, `<dir>/projects/<root>/memory/`), whatever `memory.enableManagedAutoMemory`
 * says (measured through the launcher: a write_file there, no dialog); elsewhere they ask by themselves.
 */
const WRITE_TOOLS: ReadonlySet<unknown> = new Set(['write_file', 'edit']);
const AUTO_MEMORY = /^(?:memories|projects[\\/][^\\/]+[\\/]memory)(?:[\\/]|$)/;

export const MEMORY_WRITE_REASON =
  "This tool writes into Qwen's auto-memory directory, outside the repository, which Qwen allows " +
  'without asking. Path: ';

export function writesMemory(
  input: Record<string, unknown>,
  root: string,
  host: GuardHost,
): string | undefined {
  if (!WRITE_TOOLS.has(input.tool_name) || !isPlainObject(input.tool_input)) return undefined;
  const value = input.tool_input.file_path;
  if (typeof value !== 'string') return undefined;
  const path = resolve(root, value);
  const real = host.realpath(path);
  const inMemory = (dir: string, at: string) => within(dir, at) && AUTO_MEMORY.test(relative(dir, at));
  const qwenDirs = qwenDirsOf(host);
  return qwenDirs.some((dir) => inMemory(dir, path) || inMemory(host.realpath(dir), real))
    ? MEMORY_WRITE_REASON + renderContentForDisplay(value)
    : undefined;
}
