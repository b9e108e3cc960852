import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// The named export: under NodeNext the default import types as the CommonJS namespace, not the class.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../scripts/generate-schemas.js';
import { renderContext } from '../../../src/context/renderer.js';
import {
  contextSearchInputSchema,
  contextSearchOutputSchema,
} from '../../../src/contracts/context-search.js';

interface Vector {
  name: string;
  value: unknown;
}
interface VectorGroup {
  valid: Vector[];
  invalid: Vector[];
}

const readJson = (file: string) => JSON.parse(readFileSync(join(REPOSITORY_ROOT, file), 'utf8'));
const vectors: { input: VectorGroup; output: VectorGroup } = readJson('schema/context-search.vectors.json');

const ajv = new Ajv2020({ strict: true, allErrors: true });
const contracts = {
  input: {
    json: ajv.compile(readJson('schema/context-search.input.schema.json')),
    zod: contextSearchInputSchema,
  },
  output: {
    json: ajv.compile(readJson('schema/context-search.output.schema.json')),
    zod: contextSearchOutputSchema,
  },
};

const rows = (kind: 'input' | 'output') => [
  ...vectors[kind].valid.map((vector) => [vector.name, vector.value, true] as const),
  ...vectors[kind].invalid.map((vector) => [vector.name, vector.value, false] as const),
];

describe.each(['input', 'output'] as const)('context_search %s vectors', (kind) => {
  it.each(rows(kind))('%s', (_name, value, valid) => {
    expect(contracts[kind].json(value)).toBe(valid);
    expect(contracts[kind].zod.safeParse(value).success).toBe(valid);
  });
});

describe('context_search vector file', () => {
  it.each([
    ['input', 'valid', ['plain query', 'multi-line Unicode query (CJK, newline, emoji)']],
    ['input', 'invalid', ['empty object', 'whitespace-only query', 'model picks the corpus']],
    ['output', 'valid', ['empty items', 'complete item with all optional fields']],
    [
      'output',
      'invalid',
      [
        'missing envelope',
        'unexpected top-level key',
        'missing notice',
        'altered notice',
        'missing items',
        'six items',
        'item missing id',
        'item missing content',
        'unexpected item key',
        'empty id',
        'empty content',
        'empty title',
        'empty uri',
        'empty updatedAt',
        'string score',
        'extra key inside the envelope',
      ],
    ],
  ] as const)('covers every %s %s vector the contract names', (kind, validity, names) => {
    expect(vectors[kind][validity].map((vector) => vector.name)).toEqual(expect.arrayContaining([...names]));
  });

  it.each([
    ['input', 'valid', ['query of 2000 code points (4000 UTF-16 units)']],
    ['input', 'invalid', ['query of 2001 code points']],
    ['output', 'valid', ['every field at its cap, counted in code points']],
    [
      'output',
      'invalid',
      [
        'id of 129 code points',
        'content of 1001 code points',
        'title of 201 code points',
        'uri of 501 code points',
        'updatedAt of 65 code points',
      ],
    ],
  ] as const)('pins the published bounds (upstream parity): %s %s', (kind, validity, names) => {
    expect(vectors[kind][validity].map((vector) => vector.name)).toEqual(expect.arrayContaining([...names]));
  });

  it('names every vector uniquely', () => {
    const names = [...rows('input'), ...rows('output')].map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('pins the multi-line Unicode query to CJK, a newline and an emoji', () => {
    const vector = vectors.input.valid.find((v) => v.name.startsWith('multi-line'));
    expect(vector).toBeDefined();
    expect((vector!.value as { query: string }).query).toMatch(
      /^(?=.*\p{Script=Han})(?=.*\n)(?=.*\p{Extended_Pictographic})/su,
    );
  });
});

describe('the renderer output satisfies the published output schema', () => {
  it.each([
    ['no items', []],
    ['a complete item', [{ id: 'i', content: '<c>', title: 't', uri: 'u', score: 0.5, updatedAt: '2026' }]],
    [
      'items that hit every cap',
      Array.from({ length: 6 }, (_, i) => ({ id: `${i}`.repeat(300), content: '<'.repeat(2000) })),
    ],
  ])('%s', (_case, items) => {
    const parsed = JSON.parse(renderContext(items));
    expect(contracts.output.json(parsed)).toBe(true);
    expect(contracts.output.zod.safeParse(parsed).success).toBe(true);
  });
});
