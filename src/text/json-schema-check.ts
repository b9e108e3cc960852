// Checks a JSON value against one of the project's generated JSON Schemas (schema/*.json, made from
// the zod schemas by `npm run schemas`). The launcher uses it for manifest.json and launch.json: zod
// would cost it about 6 ms per start, and the zod schema stays the one truth because this only reads
// what zod generated. It understands exactly the keywords zod emits for those schemas and refuses any
// other, so a schema change can never be checked more loosely than zod checks it (a unit test runs it
// against zod on fuzzed documents).

export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

export interface SchemaIssue {
  /** Where in the document: keys and array indexes from the root. */
  path: readonly (string | number)[];
  code:
    | 'invalid_type'
    | 'invalid_value'
    | 'invalid_key'
    | 'unrecognized_keys'
    | 'invalid_format'
    | 'too_small'
    | 'too_big';
  /** The JSON type expected (invalid_type). */
  expected?: string;
  /** The unknown keys (unrecognized_keys). */
  keys?: readonly string[];
}

const KEYWORDS = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'anyOf',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
]);

/** Thrown for a schema this checker was not written for: a build-time mistake, never bad input. */
export class UnsupportedSchemaError extends Error {}

const patterns = new Map<string, RegExp>();

function regex(source: string): RegExp {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    compiled = new RegExp(source, 'u');
    patterns.set(source, compiled);
  }
  return compiled;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: string, actual: string): boolean {
  // An integer is a number too (JSON Schema's rule).
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/** Schema objects whose keywords were already found supported (each is checked once per process). */
const known = new WeakSet<JsonSchema>();

function check(value: unknown, schema: JsonSchema, path: (string | number)[], issues: SchemaIssue[]): void {
  if (!known.has(schema)) {
    for (const keyword of Object.keys(schema)) {
      if (!KEYWORDS.has(keyword))
        throw new UnsupportedSchemaError(`unsupported JSON Schema keyword ${keyword}`);
    }
    known.add(schema);
  }
  if (schema['anyOf'] !== undefined) {
    const options = schema['anyOf'] as JsonSchema[];
    // Like zod's union: one matching option is enough; otherwise the value is reported as invalid.
    const matched = options.some((option) => {
      const found: SchemaIssue[] = [];
      check(value, option, path, found);
      return found.length === 0;
    });
    if (!matched) issues.push({ path: [...path], code: 'invalid_value' });
    return;
  }
  const actual = jsonType(value);
  const type = schema['type'] as string | undefined;
  if (type !== undefined && !typeMatches(type, actual)) {
    issues.push({ path: [...path], code: 'invalid_type', expected: type });
    return;
  }
  if (schema['const'] !== undefined && value !== schema['const']) {
    issues.push({ path: [...path], code: 'invalid_value' });
    return;
  }
  if (schema['enum'] !== undefined && !(schema['enum'] as unknown[]).includes(value)) {
    issues.push({ path: [...path], code: 'invalid_value' });
    return;
  }
  if (
    typeof value === 'string' &&
    typeof schema['pattern'] === 'string' &&
    !regex(schema['pattern']).test(value)
  ) {
    issues.push({ path: [...path], code: 'invalid_format' });
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) {
      issues.push({ path: [...path], code: 'too_small' });
    }
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) {
      issues.push({ path: [...path], code: 'too_big' });
    }
  }
  if (actual === 'array' && schema['items'] !== undefined) {
    const items = schema['items'] as JsonSchema;
    const list = value as unknown[];
    // By index, not forEach: a hole is an undefined element to check, as zod checks it.
    for (let index = 0; index < list.length; index++) check(list[index], items, [...path, index], issues);
  }
  if (actual === 'object') checkObject(value as Record<string, unknown>, schema, path, issues);
}

function checkObject(
  value: Record<string, unknown>,
  schema: JsonSchema,
  path: (string | number)[],
  issues: SchemaIssue[],
): void {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = (schema['required'] ?? []) as string[];
  const additional = schema['additionalProperties'] as JsonSchema | false | undefined;
  const names = schema['propertyNames'] as JsonSchema | undefined;
  for (const key of required) {
    if (!Object.hasOwn(value, key))
      issues.push({
        path: [...path, key],
        code: 'invalid_type',
        expected: properties[key]?.['type'] as string,
      });
  }
  const unknown: string[] = [];
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (Object.hasOwn(properties, key)) {
      check(child, properties[key]!, [...path, key], issues);
      continue;
    }
    if (additional === false) {
      unknown.push(key);
      continue;
    }
    // zod drops a `__proto__` record key silently; the value is used as parsed here, so it is refused.
    if (key === '__proto__') {
      issues.push({ path: [...path, key], code: 'invalid_key' });
      continue;
    }
    if (names !== undefined) {
      const found: SchemaIssue[] = [];
      check(key, names, [...path, key], found);
      if (found.length > 0) {
        issues.push({ path: [...path, key], code: 'invalid_value' });
        continue;
      }
    }
    if (additional !== undefined) check(child, additional, [...path, key], issues);
  }
  if (unknown.length > 0) issues.push({ path: [...path], code: 'unrecognized_keys', keys: unknown });
}

/** Every way `value` departs from `schema` (empty: it matches). */
export function schemaIssues(value: unknown, schema: JsonSchema): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  check(value, schema, [], issues);
  return issues;
}
