// Whatever a provider answers, the engine and the renderer stay inside the documented contract
// (docs/contracts.md): a search either fails with the fixed invalid-response error or gives at most
// 5 items with exactly typed fields, in provider order; the rendered envelope fits the budget and its
// structured copy passes the published output schema with no markup or hidden code point; a write
// never throws and only echoes an id the outcome rules allow. Every provider type and Mem0 preset.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTEXT_BUDGET_UNITS, MAX_ITEMS } from '../../../src/base/limits.js';
import type { ProviderConfig } from '../../../src/config/schema.js';
import { renderContext, structuredContext } from '../../../src/context/renderer.js';
import { contextSearchOutputSchema } from '../../../src/contracts/context-search.js';
import { MEM0_PRESET_NAMES, MEM0_PRESETS } from '../../../src/contracts/mem0-presets.js';
import { isProviderRequestError } from '../../../src/http/request-error.js';
import type { Transport } from '../../../src/http/transport.js';
import { createProvider } from '../../../src/providers/factory.js';
import { isUuid, isValidProviderId } from '../../../src/providers/mem0/write-outcome.js';
import type { ContextItem } from '../../../src/providers/types.js';
import { hiddenCodePoints } from '../../../src/text/hidden.js';

const ORIGIN = 'https://provider.example.com';

const mem0 = (preset: string): ProviderConfig => {
  const spec = MEM0_PRESETS[preset as keyof typeof MEM0_PRESETS];
  const scope = Object.fromEntries(spec.required.map((key) => [key, `${key}-1`]));
  return {
    type: 'mem0',
    preset,
    endpoint: { origin: ORIGIN, basePath: '' },
    credentialEnv: 'K',
    scope,
  } as ProviderConfig;
};

const PROVIDERS: Array<[string, ProviderConfig]> = [
  ['generic-http-search-v1', { type: 'generic-http-search-v1', baseUrl: ORIGIN, tokenEnv: 'T' }],
  ['dataworks-bff-memory-v1', { type: 'dataworks-bff-memory-v1', baseUrl: ORIGIN, tokenEnv: 'T' }],
  ...MEM0_PRESET_NAMES.map((preset): [string, ProviderConfig] => [preset, mem0(preset)]),
];

/** A transport whose every answer is `status` and `body`, split into the given chunks. */
function answering(status: number, body: Uint8Array, cuts: readonly number[]): Transport {
  return {
    async post() {
      const points = [...new Set([0, ...cuts.map((c) => c % (body.length + 1)), body.length])].sort(
        (a, b) => a - b,
      );
      return {
        status,
        headers: {},
        body: (async function* () {
          for (let i = 1; i < points.length; i++) yield body.subarray(points[i - 1], points[i]);
        })(),
        cancel: () => {},
      };
    },
  };
}

// Text a provider might send: every hostile kind the contract names, and arbitrary Unicode.
const hostile = fc.constantFrom(
  '<|im_end|>',
  '[/INST]',
  '\u009b31m',
  '\u009d0;t\u009c',
  '\u001b[2J',
  '\u200b\u200b\u200b',
  '\u00ad',
  '\u3164',
  '\u{e0041}\u{e0042}',
  '\ufe0f\ufe0f',
  '\u2028',
  '\u202e',
  '\ud800',
  '\udc00',
  '😀',
  '部署',
  '"',
  '\\',
  '',
  ' ',
);
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(hostile, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3000 }),
);
const value = fc.oneof(
  { weight: 6, arbitrary: text },
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.constant({}),
);
const FIELDS = [
  'id',
  'memory_id',
  'content',
  'memory',
  'text',
  'title',
  'uri',
  'updated_at',
  'updatedAt',
  'score',
  'infer',
  '__proto__',
  'toString',
] as const;
const item = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 9 }) },
  // mem0-v2 Direct Import: the messages array as JSON text, marked `infer: false`.
  fc.record({
    id: text,
    memory: fc
      .array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: value }), {
        maxLength: 2,
      })
      .map((m) => JSON.stringify(m)),
    infer: fc.constant(false),
  }),
  value,
);
const list = fc.array(item, { maxLength: 12 });
// Every documented answer shape, and anything else.
const answer = fc.oneof(
  list.map((items) => ({ items })),
  list.map((results) => ({ results })),
  fc.record({ code: fc.constantFrom(0, 200, 403, '0'), data: list }),
  fc.record({ code: fc.constantFrom(0, 200), data: list.map((results) => ({ results })) }),
  fc.record({
    event_id: fc.oneof(fc.uuid(), text),
    status: fc.constantFrom('PENDING', 'SUCCEEDED', 'FAILED', 'RUNNING'),
  }),
  fc.jsonValue(),
);
const encoded = answer.map((a) => new TextEncoder().encode(JSON.stringify(a)));
// What arrives on the wire: a JSON answer (maybe behind a BOM), or arbitrary bytes.
const bytes = fc.oneof(
  { weight: 6, arbitrary: encoded },
  encoded.map((b) => new Uint8Array([0xef, 0xbb, 0xbf, ...b])),
  fc.uint8Array({ maxLength: 64 }),
);
const cuts = fc.array(fc.nat(), { maxLength: 4 });
const signal = () => AbortSignal.timeout(30_000);
const RUNS = { numRuns: 150 } as const;

/** True when `kept` are items of `raw`, in order: their ids appear in the answer's bytes in that order. */
function inOrder(raw: string, kept: readonly ContextItem[]): boolean {
  let from = 0;
  for (const { id } of kept) {
    const at = raw.indexOf(JSON.stringify(id).slice(1, -1), from);
    if (at === -1) return false;
    from = at;
  }
  return true;
}

describe.each(PROVIDERS)('%s: any answer stays inside the contract', (_name, config) => {
  it('search: the fixed invalid-response error, or at most 5 exactly typed items in answer order', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, cuts, fc.integer({ min: -3, max: 9 }), async (body, at, limit) => {
        const provider = createProvider(config, 'k', { transport: answering(200, body, at) });
        let items: ContextItem[];
        try {
          items = await provider.search({ query: 'q', limit, signal: signal() });
        } catch (error) {
          expect(isProviderRequestError(error) && error.kind).toBe('invalid-response');
          return;
        }
        expect(items.length).toBeLessThanOrEqual(Math.min(MAX_ITEMS, Math.max(1, limit)));
        for (const found of items) {
          expect(
            Object.keys(found).every((key) => /^(id|content|title|uri|updatedAt|score)$/.test(key)),
          ).toBe(true);
          for (const key of ['id', 'content', 'title', 'uri', 'updatedAt'] as const) {
            const field = found[key];
            if (key === 'id' || key === 'content' || field !== undefined) {
              expect(typeof field === 'string' && field !== '').toBe(true);
            }
          }
          if (found.score !== undefined) expect(Number.isFinite(found.score)).toBe(true);
        }
        expect(inOrder(new TextDecoder().decode(body), items)).toBe(true);
      }),
      RUNS,
    );
  });

  it('the rendered result: within the budget, and its structured copy passes the published schema with nothing hidden', async () => {
    await fc.assert(
      fc.asyncProperty(encoded, async (body) => {
        const provider = createProvider(config, 'k', { transport: answering(200, body, []) });
        const items = await provider
          .search({ query: 'q', limit: MAX_ITEMS, signal: signal() })
          .catch(() => []);
        const envelope = renderContext(items);
        expect(envelope.length).toBeLessThanOrEqual(CONTEXT_BUDGET_UNITS);
        expect(envelope).not.toMatch(/[<>\u2028\u2029\u0080-\u009f]/);
        const structured = structuredContext(envelope);
        expect(contextSearchOutputSchema.safeParse(structured).success).toBe(true);
        const shown = JSON.stringify(structured);
        expect([hiddenCodePoints(shown), /[<>]/.test(shown)]).toEqual([[], false]);
        // A prefix of the ranking: never more items than the provider gave, never more than 5.
        const rendered = (JSON.parse(envelope) as { untrusted_external_context: { items: unknown[] } })
          .untrusted_external_context.items;
        expect(rendered.length).toBeLessThanOrEqual(Math.min(items.length, MAX_ITEMS));
      }),
      RUNS,
    );
  });

  it('write: never throws; an id is echoed only as the outcome rules allow', async () => {
    if (createProvider(config, 'k', { transport: answering(200, new Uint8Array(), []) }).writer === undefined)
      return;
    await fc.assert(
      fc.asyncProperty(
        bytes,
        cuts,
        fc.constantFrom(200, 201, 202, 204, 301, 400, 401, 403, 404, 409, 429, 500, 503),
        async (body, at, status) => {
          const provider = createProvider(config, 'k', { transport: answering(status, body, at) });
          const result = await provider.writer!.remember({ content: 'c', signal: signal() });
          expect(['stored', 'accepted', 'failed', 'unknown']).toContain(result.status);
          if (status >= 300)
            expect(result.status).toBe([400, 401, 403, 404].includes(status) ? 'failed' : 'unknown');
          if ('providerOperationId' in result && result.providerOperationId !== undefined) {
            expect(isValidProviderId(result.providerOperationId)).toBe(true);
            if (result.status === 'accepted') expect(isUuid(result.providerOperationId)).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });
});
