// The launcher checks manifest.json and launch.json with the JSON Schemas generated from their zod
// schemas: the checker must accept exactly what zod accepts, on the real schemas and on fuzzed
// documents, and refuse a schema keyword it does not know (it would otherwise check more loosely).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import installManifestJsonSchema from '../../../schema/install-manifest.schema.json' with { type: 'json' };
import launchPlanJsonSchema from '../../../schema/launch-plan.schema.json' with { type: 'json' };
import { installManifestSchema } from '../../../src/contracts/install-manifest-schema.js';
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';
import {
  type JsonSchema,
  schemaIssues,
  UnsupportedSchemaError,
} from '../../../src/text/json-schema-check.js';
import { mutate, mutationArb } from '../../fixtures/json-mutations.js';
import { samplePlan } from '../launcher/plan-fixture.js';

const manifest = {
  toolkitVersion: '0.1.0',
  deploymentSha256: 'a'.repeat(64),
  adminUid: 0,
  files: { 'manifest.json': { sha256: 'b'.repeat(64), mode: '0644' } },
  profiles: { 'on-demand': { state: 'active', changedAt: '2026-12-02T00:00:00.000Z' } },
};

const cases = [
  { name: 'launch.json', zod: launchPlanSchema, json: launchPlanJsonSchema, valid: samplePlan() },
  { name: 'manifest.json', zod: installManifestSchema, json: installManifestJsonSchema, valid: manifest },
] as const;

// Values a mutation plants: each JSON type, the boundaries the schemas draw, and the enums' members.
const planted = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(1, 0, -1, 1.5, 2 ** 53, 'on-demand', 'rolled-back', 'posix', 'untrusted', true),
  fc.constantFrom('0644', '0999', 'a'.repeat(64), '0123456789abcdef', { file: '/f' }, { inherit: true }),
);
const keys = fc.constantFrom('version', 'extra', '__proto__', 'write', 'file', 'inherit', 'mode', 'sha256');

describe.each(cases)('$name: the generated JSON Schema judges like zod', ({ zod, json, valid }) => {
  it('accepts the valid document', () => {
    expect(zod.safeParse(valid).success).toBe(true);
    expect(schemaIssues(valid, json as JsonSchema)).toEqual([]);
  });

  it('agrees with zod on 3000 mutated documents, reaching both outcomes', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.array(mutationArb(planted, keys), { minLength: 1, maxLength: 3 }), (mutations) => {
        const doc = mutate(valid, mutations);
        // The one difference: zod drops a `__proto__` record key, the checker refuses it.
        const zodOk = zod.safeParse(doc).success && !JSON.stringify(doc).includes('"__proto__"');
        expect(schemaIssues(doc, json as JsonSchema).length === 0).toBe(zodOk);
        if (zodOk) accepted++;
        else refused++;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});

describe('issues name the place and the rule', () => {
  it.each([
    {
      what: 'a wrong type and an unknown key',
      doc: { ...samplePlan(), node: 7, extra: true },
      issues: [
        { path: ['node'], code: 'invalid_type', expected: 'string' },
        { path: [], code: 'unrecognized_keys', keys: ['extra'] },
      ],
    },
    {
      what: 'a missing key',
      doc: (({ cwd: _cwd, ...rest }) => rest)(samplePlan()),
      issues: [{ path: ['cwd'], code: 'invalid_type', expected: 'string' }],
    },
    {
      what: 'a value outside the enum and a bad pattern',
      doc: { ...samplePlan(), profile: 'yolo', installId: 'XYZ' },
      issues: [
        { path: ['profile'], code: 'invalid_value' },
        { path: ['installId'], code: 'invalid_format' },
      ],
    },
    {
      what: 'a __proto__ record key (zod would drop it)',
      doc: { ...samplePlan(), credentials: JSON.parse('{"__proto__": {"inherit": true}}') },
      issues: [{ path: ['credentials', '__proto__'], code: 'invalid_key' }],
    },
    {
      what: 'a credential source matching neither form',
      doc: { ...samplePlan(), credentials: { T: { file: '/f', inherit: true } } },
      issues: [{ path: ['credentials', 'T'], code: 'invalid_value' }],
    },
  ])('$what', ({ doc, issues }) => {
    expect(schemaIssues(doc, launchPlanJsonSchema as JsonSchema)).toEqual(issues);
  });

  it.each([
    {
      what: 'a profile name outside the enum',
      edit: { profiles: { yolo: { state: 'active', changedAt: 'x' } } },
    },
    { what: 'a negative uid', edit: { adminUid: -1 } },
    { what: 'a fractional uid', edit: { adminUid: 0.5 } },
  ])('manifest: $what is refused', ({ edit }) => {
    expect(schemaIssues({ ...manifest, ...edit }, installManifestJsonSchema as JsonSchema)).not.toEqual([]);
  });
});

it('refuses a schema keyword it was not written for, instead of ignoring it', () => {
  expect(() => schemaIssues('x', { type: 'string', maxLength: 3 })).toThrow(UnsupportedSchemaError);
});
