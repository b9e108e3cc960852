import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN_DOC, providerFieldsBlock, withProviderFields } from '../../../scripts/docs/provider-fields.js';
import {
  formatJson,
  generateSchemaFiles,
  REPOSITORY_ROOT,
  SCHEMA_FILES,
} from '../../../scripts/generate-schemas.js';
import { providerSchema } from '../../../src/config/schema.js';

describe('generated JSON Schemas', () => {
  it.each(SCHEMA_FILES.map(({ file }) => [file]))('%s on disk equals a fresh generation', (file) => {
    const fresh = generateSchemaFiles().get(file);
    expect(readFileSync(join(REPOSITORY_ROOT, file), 'utf8')).toBe(fresh);
  });

  it('publishes the context_search input and output schemas', () => {
    expect([...generateSchemaFiles().keys()]).toEqual(
      expect.arrayContaining([
        'schema/context-search.input.schema.json',
        'schema/context-search.output.schema.json',
      ]),
    );
  });

  it('is stable: two generations are identical', () => {
    expect([...generateSchemaFiles()]).toEqual([...generateSchemaFiles()]);
  });

  it('declares draft 2020-12 and ends every file with one newline', () => {
    for (const text of generateSchemaFiles().values()) {
      expect(JSON.parse(text).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(text.endsWith('}\n')).toBe(true);
    }
  });
});

describe("docs/admin.md's provider-field tables", () => {
  it('equal a fresh generation from the provider schema (npm run schemas)', () => {
    const doc = readFileSync(join(REPOSITORY_ROOT, ADMIN_DOC), 'utf8');
    expect(doc).toBe(withProviderFields(doc));
    // One table per provider type of the union.
    for (const type of ['generic-http-search-v1', 'mem0-platform-v3', 'mem0', 'dataworks-bff-memory-v1'])
      expect(providerFieldsBlock()).toContain(`**\`${type}\`**`);
  });

  it('every provider example of the guide is a block the runtimes accept, one per family', () => {
    const doc = readFileSync(join(REPOSITORY_ROOT, ADMIN_DOC), 'utf8');
    const section = doc.slice(doc.indexOf('### Provider fields'), doc.indexOf('<!-- mem0-presets:start -->'));
    const blocks = [...section.matchAll(/```json\n("provider": [\s\S]*?)\n```/g)].map(
      (m) => JSON.parse(`{${m[1]}}`).provider,
    );
    for (const block of blocks)
      expect(providerSchema.safeParse(block).success, JSON.stringify(block)).toBe(true);
    const families = blocks.map((b) => (b.type === 'mem0' ? `mem0:${b.preset}` : b.type));
    expect(families).toEqual([
      'generic-http-search-v1',
      'mem0-platform-v3',
      'mem0:mem0-platform-v3',
      'mem0:mem0-oss-rest-2026-08',
      'mem0:aliyun-polardb-mysql-2026-08',
      'mem0:mem0-v2',
      'dataworks-bff-memory-v1',
    ]);
  });
});

describe('formatJson', () => {
  it('expands objects and keeps short scalar arrays on one line, as biome does', () => {
    expect(formatJson({ a: { b: 1 }, c: ['x', 'y'], d: [], e: {} })).toBe(
      '{\n  "a": {\n    "b": 1\n  },\n  "c": ["x", "y"],\n  "d": [],\n  "e": {}\n}',
    );
  });

  it('breaks a scalar array that does not fit in 110 columns, and arrays of objects', () => {
    const long = Array.from({ length: 12 }, (_, i) => `element-${i}`);
    expect(formatJson({ long })).toBe(`{\n  "long": [\n${long.map((s) => `    "${s}"`).join(',\n')}\n  ]\n}`);
    expect(formatJson([{ a: 1 }])).toBe('[\n  {\n    "a": 1\n  }\n]');
  });

  it('round-trips through JSON.parse', () => {
    const value = { s: 'q"\\\n<', n: [1, null, true], o: { nested: [{ x: 'y' }] } };
    expect(JSON.parse(formatJson(value))).toEqual(value);
  });
});
