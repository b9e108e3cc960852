// The part of the repository check only a trusted repository with a `.qwen/settings.json` or
// `.qwen/agents/` needs — bundled on its own as runtime/launch-repository.js: the YAML parser and the
// settings table cost tens of milliseconds to load, so an ordinary repository never pays for them.
import { parse } from 'yaml';
import { decideCommand } from '../src/policy/project-commands.js';
import {
  type AgentFrontMatter,
  decideAgent,
  decideWorkspaceSettings,
  type Refusal,
} from '../src/policy/repository.js';
import { pathProblem } from '../src/policy/repository-path.js';
import { builtinCommandNames, COMMANDS_DIR, commandName, decodeTomlStrings } from '../src/qwen/commands.js';
import { QWEN_DIR } from '../src/qwen/env-files.js';
import { authTypesOf } from '../src/qwen/model-selector.js';
import { qwenSettingsFacts } from '../src/qwen/settings-facts.js';
import { pinnedQwenFacts } from '../src/qwen/versions.js';
import { isPlainObject } from '../src/text/json.js';
import { parseJsonc } from '../src/text/jsonc.js';
import type { ProjectInput } from './repository.js';
import { walkJudged } from './repository-files.js';

/** CRLF and a byte-order mark are normalised away first, as Qwen does. */
function frontMatter(text: string): string | undefined {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  return /^---\n([\s\S]*?)\n---\n[\s\S]*$/.exec(normalized)?.[1];
}

/**
 * The top-level keys and the model selectors Qwen 0.24 could read from a project agent's YAML front
 * matter; none when the file has none (Qwen then does not load it as an agent). Qwen parses the
 * block with the `yaml` package (core schema) and, when that fails or yields no mapping, falls back
 * to a line parser that takes the text before a line's first `:` as a key — a superset here: every
 * line counts, nested or not, and every `model:` line's value (quoted or not) is a selector.
 */
export function agentFrontMatter(text: string): AgentFrontMatter {
  const yaml = frontMatter(text);
  if (yaml === undefined) return { keys: [], models: [] };
  try {
    const parsed: unknown = parse(yaml, { schema: 'core' });
    if (isPlainObject(parsed)) {
      // Qwen takes String(model) of any non-empty value, else a string modelConfig.model.
      const legacy = isPlainObject(parsed.modelConfig) ? parsed.modelConfig.model : undefined;
      const models = [parsed.model, legacy].filter((m) => m !== undefined && m !== null && m !== '');
      return { keys: Object.keys(parsed), models: models.map(String) };
    }
  } catch {
    // Qwen falls back to its line parser; so does this.
  }
  const keys = new Set<string>();
  const models: string[] = [];
  for (const line of yaml.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    keys.add(key);
    if (key !== 'model') continue;
    const value = line.slice(colon + 1).trim();
    models.push(value, value.replace(/^(["'])(.*)\1$/, '$2'));
  }
  return { keys: [...keys], models };
}

/** The top-level keys of `agentFrontMatter`. */
export function frontMatterKeys(text: string): string[] {
  return [...agentFrontMatter(text).keys];
}

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

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
        judgeCustomIgnoreFiles(input, parsed);
        const facts = qwenSettingsFacts(input.qwenVersion) ?? {};
        refused.push(
          ...decideWorkspaceSettings(parsed, {
            ...input.rules,
            file,
            system: input.systemSettings(),
            facts,
            settingsVersion: pinnedQwenFacts(input.qwenVersion).settingsVersion,
          }),
        );
      }
    }
  }
  const auth = input.systemSettings().security;
  const session = {
    authType: isPlainObject(auth) && isPlainObject(auth.auth) ? stringOr(auth.auth.selectedType) : undefined,
    authTypes: authTypesOf(qwenSettingsFacts(input.qwenVersion) ?? {}),
  };
  for (const agent of input.agents) {
    const text = paths.read(agent);
    if (text !== undefined) refused.push(...decideAgent(agent.file, agentFrontMatter(text), session));
  }
  refused.push(...inspectCommands(input));
  return refused;
}

/**
 * `context.fileFiltering.customIgnoreFiles` of the workspace settings names files at the repository
 * root Qwen reads as ignore lists (it skips absolute names and `..` itself): each is judged by the
 * path rule, like `.gitignore`.
 */
function judgeCustomIgnoreFiles(input: ProjectInput, settings: unknown): void {
  const filtering =
    isPlainObject(settings) && isPlainObject(settings.context) ? settings.context.fileFiltering : undefined;
  const names = isPlainObject(filtering) ? filtering.customIgnoreFiles : undefined;
  if (!Array.isArray(names)) return;
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const candidate = name.trim().replaceAll('\\', '/');
    if (candidate === '' || candidate.startsWith('/') || candidate.split('/').includes('..')) continue;
    input.paths.check(input.paths.path.join(input.plan.cwd, candidate));
  }
}

/** The project commands: no built-in's name, no shell injection, every file injection inside the repository. */
function inspectCommands(input: ProjectInput): Refusal[] {
  const { paths } = input;
  const { path } = paths;
  const refused: Refusal[] = [];
  const dir = path.join(input.plan.cwd, QWEN_DIR, COMMANDS_DIR);
  const builtins = builtinCommandNames(input.qwenVersion);
  for (const command of input.commands) {
    const text = paths.read(command);
    if (text === undefined) continue;
    const toml = command.file.endsWith('.toml');
    // A TOML prompt may spell `!{` with escapes; judge both what is written and what it decodes to.
    const prompt = toml ? `${text}\n${decodeTomlStrings(text)}` : text;
    const decision = decideCommand(
      { file: command.file, name: commandName(path.relative(dir, command.file)), prompt },
      builtins,
    );
    refused.push(...decision.refused);
    for (const injected of new Set(decision.fileInjections)) {
      // Qwen reads an absolute path as is and resolves a relative one against its working directory.
      const target = path.resolve(input.plan.cwd, injected);
      const verdict = paths.judge(target, true);
      const problem = pathProblem(verdict, paths.root);
      if (problem !== undefined) {
        refused.push({ file: command.file, key: `@{${injected}}`, ...problem });
        continue;
      }
      // A directory is read whole: every file below it must stay inside too.
      if (verdict.kind === 'inside' && verdict.type === 'directory') walkJudged(paths, target);
    }
  }
  return refused;
}
