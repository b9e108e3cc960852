// Generates the published JSON Schemas from the zod schemas (`npx tsx scripts/generate-schemas.ts`).
// A unit test compares the committed files with a fresh generation, so they never drift.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { contextSearchInputSchema, contextSearchOutputSchema } from '../src/contracts/context-search.js';
import { installManifestSchema } from '../src/contracts/install-manifest-schema.js';
import { launchPlanSchema } from '../src/contracts/launch-plan-schema.js';
import { deploymentSchema } from '../src/deploy/deployment/schema.js';
import { ADMIN_DOC } from './docs/admin-doc.js';
import { withMem0Presets } from './docs/mem0-presets.js';
import { withProviderFields } from './docs/provider-fields.js';
import { generateHiddenCodePoints, HIDDEN_CODE_POINTS_FILE } from './generate-hidden-code-points.js';
import { generateValidators } from './generate-validators.js';
import { generateSettingsTables, SETTINGS_TABLES_FILE } from './qwen-facts/generate-tables.js';

export interface SchemaFile {
  /** Path relative to the repository root. */
  file: string;
  schema: z.core.$ZodType;
  /** `input` for files people write (defaulted fields are optional); default `output`. */
  io?: 'input' | 'output';
}

/** Every published schema; add new entries here. */
export const SCHEMA_FILES: readonly SchemaFile[] = [
  { file: 'schema/context-search.input.schema.json', schema: contextSearchInputSchema },
  { file: 'schema/context-search.output.schema.json', schema: contextSearchOutputSchema },
  // deployment.json is written by administrators: the editor schema describes the input side.
  { file: 'schema/deployment.schema.json', schema: deploymentSchema, io: 'input' },
  // Written by render; the launcher checks them with validators generated from the same zod schemas.
  { file: 'schema/install-manifest.schema.json', schema: installManifestSchema },
  { file: 'schema/launch-plan.schema.json', schema: launchPlanSchema },
];

export const REPOSITORY_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** File path → exact file text, for every entry of `SCHEMA_FILES`. */
export function generateSchemaFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const { file, schema, io } of SCHEMA_FILES) {
    files.set(
      file,
      formatJson(z.toJSONSchema(schema, { target: 'draft-2020-12', io: io ?? 'output' })) + '\n',
    );
  }
  return files;
}

/** The JSON Schemas and the start-up validators generated from the same zod schemas, the Qwen
 * settings-table imports generated from the versions policy, the hidden code points' table, and
 * docs/admin.md's Mem0 preset table. */
export function writeSchemaFiles(root: string = REPOSITORY_ROOT): void {
  const files = new Map([...generateSchemaFiles(), ...generateValidators()])
    .set(SETTINGS_TABLES_FILE, generateSettingsTables())
    .set(HIDDEN_CODE_POINTS_FILE, generateHiddenCodePoints())
    // The admin guide's Mem0 preset table comes from the preset table itself, its provider-field
    // tables from the schema's descriptions.
    .set(ADMIN_DOC, withProviderFields(withMem0Presets(readFileSync(join(root, ADMIN_DOC), 'utf8'))));
  for (const [file, text] of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
}

const LINE_WIDTH = 110;

/**
 * Pretty JSON laid out the way `biome format` lays it out (2 spaces, objects expanded, arrays of
 * scalars on one line when they fit in 110 columns), so `biome check` accepts the generated files.
 */
export function formatJson(value: unknown, indent = '', prefixWidth = 0): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((element) => element === null || typeof element !== 'object')) {
      const inline = '[' + value.map((element) => JSON.stringify(element)).join(', ') + ']';
      // +1 for a trailing comma that may follow on the same line.
      if (prefixWidth + inline.length + 1 <= LINE_WIDTH) return inline;
    }
    const inner = indent + '  ';
    const lines = value.map((element) => inner + formatJson(element, inner, inner.length));
    return '[\n' + lines.join(',\n') + '\n' + indent + ']';
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = indent + '  ';
    const lines = entries.map(([key, element]) => {
      const head = inner + JSON.stringify(key) + ': ';
      return head + formatJson(element, inner, head.length);
    });
    return '{\n' + lines.join(',\n') + '\n' + indent + '}';
  }
  return JSON.stringify(value);
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(realpathSync(invokedPath)).href) {
  writeSchemaFiles();
}
