// The top-level keys Qwen 0.24 reads from a project agent's YAML front matter (bundled on its own as
// runtime/launch-agents.js: the YAML parser costs tens of milliseconds to load, so only a repository
// that has project agents pays it). Qwen takes the block between a leading `---` line and the next
// `---` line, parses it with the `yaml` package (core schema), and when that fails or yields no
// mapping falls back to a line parser that takes the text before the first `:` of a line as a key.
import { parse } from 'yaml';

/** CRLF and a byte-order mark are normalised away first, as Qwen does. */
function frontMatter(text: string): string | undefined {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  return /^---\n([\s\S]*?)\n---\n[\s\S]*$/.exec(normalized)?.[1];
}

/**
 * The keys Qwen could read from the file's front matter; `[]` when the file has none (Qwen then
 * does not load it as an agent). A superset on the fallback path: every line's text before its
 * first `:` counts, nested or not, so nothing Qwen's line parser could see is missed.
 */
export function frontMatterKeys(text: string): string[] {
  const yaml = frontMatter(text);
  if (yaml === undefined) return [];
  try {
    const parsed: unknown = parse(yaml, { schema: 'core' });
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return Object.keys(parsed);
  } catch {
    // Qwen falls back to its line parser; so does this.
  }
  const keys = new Set<string>();
  for (const line of yaml.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) keys.add(line.slice(0, colon).trim());
  }
  return [...keys];
}
