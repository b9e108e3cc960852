// The part of the repository check only a trusted repository with a `.qwen/settings.json` or
// `.qwen/agents/` needs — bundled on its own as runtime/launch-repository.js: the YAML parser and the
// settings table cost tens of milliseconds to load, so an ordinary repository never pays for them.
import { parse } from 'yaml';
import { decideAgent, decideWorkspaceSettings, type Refusal } from '../src/policy/repository.js';
import { qwenSettingsFacts } from '../src/qwen/settings-facts.js';
import { parseJsonc } from '../src/text/jsonc.js';
import type { ProjectInput } from './repository.js';

/** CRLF and a byte-order mark are normalised away first, as Qwen does. */
function frontMatter(text: string): string | undefined {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  return /^---\n([\s\S]*?)\n---\n[\s\S]*$/.exec(normalized)?.[1];
}

/**
 * The top-level keys Qwen 0.24 could read from a project agent's YAML front matter; `[]` when the
 * file has none (Qwen then does not load it as an agent). Qwen parses the block with the `yaml`
 * package (core schema) and, when that fails or yields no mapping, falls back to a line parser that
 * takes the text before a line's first `:` as a key — a superset here: every line counts, nested or not.
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

/** The workspace settings, project agents and project commands of a trusted repository, judged. */
export function inspectProject(input: ProjectInput): Refusal[] {
  const { paths } = input;
  const refused: Refusal[] = [];
  if (input.settingsFile !== undefined) {
    const file = input.settingsFile.file;
    const text = paths.read(input.settingsFile);
    if (text !== undefined) {
      let parsed: unknown;
      try {
        parsed = parseJsonc(text.replace(/^\uFEFF/, '')).value;
      } catch {
        refused.push({
          file,
          key: '(the whole file)',
          why: 'it is not valid JSON, so what Qwen would take from it cannot be checked',
          fix: 'fix the JSON or remove the file',
        });
      }
      if (parsed !== undefined) {
        const facts = qwenSettingsFacts(input.qwenVersion) ?? {};
        refused.push(
          ...decideWorkspaceSettings(parsed, {
            ...input.rules,
            file,
            system: input.systemSettings(),
            facts,
          }),
        );
      }
    }
  }
  for (const agent of input.agents) {
    const text = paths.read(agent);
    if (text !== undefined) refused.push(...decideAgent(agent.file, frontMatterKeys(text)));
  }
  return refused;
}
