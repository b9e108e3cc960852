// Generates src/config/compiled-parser.ts, the auto-recall hook's config validator, from the zod
// schema in src/config/schema.ts by walking its definition (`_zod.def`): the hook gets plain checks
// with no zod to load, and the schema stays the one place the config's shape is written.
// `npm run schemas` writes the file; test/unit/config/compiled-parser.test.ts fails when it is
// stale and proves it accepts, outputs and reports (first issue's key path) exactly what zod does.
import * as rules from '../src/config/rules.js';
import { runtimeConfigSchema } from '../src/config/schema.js';

/** zod checks that only annotate the schema (z.describe, z.meta): they accept every value. */
const METADATA_CHECKS: ReadonlySet<string> = new Set(['describe', 'meta']);

export const CONFIG_PARSER_FILE = 'src/config/compiled-parser.ts';

/** The slice of zod's definition objects this generator reads. */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  options?: Schema[];
  discriminator?: string;
  innerType?: Schema;
  defaultValue?: unknown;
  values?: unknown[];
  entries?: Record<string, string>;
  format?: string;
  checks?: { _zod: { def: CheckDef } }[];
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: number;
  inclusive?: boolean;
  fn?: unknown;
  tx?: unknown;
  path?: (string | number)[];
}
interface Schema {
  _zod: { def: Def };
}

/** Refinement functions by identity → the name the generated file imports them under. */
const RULES = new Map<unknown, string>(Object.entries(rules).map(([name, fn]) => [fn, name]));

function rule(fn: unknown): string {
  const name = RULES.get(fn);
  if (name === undefined) {
    throw new Error(
      `a refinement in src/config/schema.ts is not exported from src/config/rules.ts: ${String(fn)}`,
    );
  }
  return name;
}

class Generator {
  private readonly functions: string[] = [];
  private readonly names = new Map<Schema, string>();
  readonly used = new Set<string>();

  /** The name of the function that parses `schema`: `(v: unknown, p: Path) => unknown`. */
  parser(schema: Schema): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    const name = `p${this.names.size}`;
    this.names.set(schema, name);
    const body = this.body(schema._zod.def);
    this.functions.push(`function ${name}(v: unknown, p: Path): unknown {\n${body}\n}`);
    return name;
  }

  output(): string {
    return this.functions.join('\n\n');
  }

  private body(def: Def): string {
    const own = checksOf(def);
    // Only strings, numbers and objects carry checks this generator emits.
    if (own.length > 0 && !['string', 'number', 'object'].includes(def.type)) {
      throw new Error(`checks on a zod ${def.type} are not supported: ${own.map((c) => c.check).join(', ')}`);
    }
    switch (def.type) {
      case 'object':
        return this.object(def);
      case 'union':
        return this.union(def);
      case 'string':
        return this.checked(def, "  if (typeof v !== 'string') throw new Invalid(p);");
      case 'number':
        if (def.format !== 'safeint') throw new Error(`number format ${def.format} is not supported`);
        return this.checked(
          def,
          "  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Invalid(p);",
        );
      case 'boolean':
        return "  if (typeof v !== 'boolean') throw new Invalid(p);\n  return v;";
      case 'literal': {
        const test = (def.values ?? []).map((value) => `v !== ${lit(value)}`).join(' && ');
        return `  if (${test}) throw new Invalid(p);\n  return v;`;
      }
      case 'enum': {
        // An array, not an object lookup: `toString` or `__proto__` never names a value.
        return `${arrayConst('values', Object.values(def.entries ?? {}))}\n  if (typeof v !== 'string' || !values.includes(v)) throw new Invalid(p);\n  return v;`;
      }
      case 'optional':
        return `  return v === undefined ? undefined : ${this.parser(inner(def))}(v, p);`;
      case 'default':
        return `  return v === undefined ? ${lit(def.defaultValue)} : ${this.parser(inner(def))}(v, p);`;
      default:
        throw new Error(`zod type ${def.type} is not supported by scripts/generate-config-parser.ts`);
    }
  }

  /** zod's order: every shape key in order, then unknown keys, then the object's own checks. */
  private object(def: Def): string {
    if (def.catchall?._zod.def.type !== 'never') throw new Error('only strict objects are supported');
    const keys = Object.keys(def.shape ?? {});
    const lines = [
      "  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Invalid(p);",
      '  const o = v as Json;',
      '  const out: Json = {};',
    ];
    for (const [key, child] of Object.entries(def.shape ?? {})) {
      const k = lit(key);
      lines.push(
        `  const ${ident(key)} = ${this.parser(child)}(o[${k}], [...p, ${k}]);`,
        `  if (${ident(key)} !== undefined) out[${k}] = ${ident(key)};`,
      );
    }
    // Strict at every level: an unknown key (also `__proto__` from JSON) is an error, never ignored.
    lines.push(
      arrayConst('keys', keys),
      '  for (const key of Object.keys(o)) if (!keys.includes(key)) throw new Invalid(p);',
    );
    for (const c of checksOf(def)) {
      if (c.check !== 'custom') throw new Error(`object check ${c.check} is not supported`);
      const at = c.path === undefined ? 'p' : `[...p, ${c.path.map(lit).join(', ')}]`;
      lines.push(`  if (!${this.use(rule(c.fn))}(out as never)) throw new Invalid(${at});`);
    }
    lines.push('  return out;');
    return lines.join('\n');
  }

  /** A discriminated union: a non-object fails here, an unknown discriminator at its key. */
  private union(def: Def): string {
    const key = def.discriminator;
    if (key === undefined) throw new Error('only discriminated unions are supported');
    const k = lit(key);
    const lines = [
      "  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Invalid(p);",
      `  switch ((v as Json)[${k}]) {`,
    ];
    for (const option of def.options ?? []) {
      const values = option._zod.def.shape?.[key]?._zod.def.values ?? [];
      for (const value of values) lines.push(`    case ${lit(value)}:`);
      lines.push(`      return ${this.parser(option)}(v, p);`);
    }
    lines.push('    default:', `      throw new Invalid([...p, ${k}]);`, '  }');
    return lines.join('\n');
  }

  /** A type check, then the schema's checks in their order (all reported at the value's path). */
  private checked(def: Def, typeCheck: string): string {
    const lines = [typeCheck];
    let value = 'v';
    for (const c of checksOf(def)) {
      if (c.check === 'string_format' && c.format === 'regex' && c.pattern !== undefined) {
        lines.push(`  if (!${String(c.pattern)}.test(${value})) throw new Invalid(p);`);
      } else if (c.check === 'greater_than') {
        lines.push(`  if (!(${value} ${c.inclusive ? '>=' : '>'} ${c.value})) throw new Invalid(p);`);
      } else if (c.check === 'less_than') {
        lines.push(`  if (!(${value} ${c.inclusive ? '<=' : '<'} ${c.value})) throw new Invalid(p);`);
      } else if (c.check === 'overwrite') {
        lines.push(`  const t${lines.length} = ${this.use(rule(c.tx))}(${value});`);
        value = `t${lines.length - 1}`;
      } else if (c.check === 'custom') {
        lines.push(`  if (!${this.use(rule(c.fn))}(${value})) throw new Invalid(p);`);
      } else {
        throw new Error(`check ${c.check} is not supported by scripts/generate-config-parser.ts`);
      }
    }
    lines.push(`  return ${value};`);
    return lines.join('\n');
  }

  private use(name: string): string {
    this.used.add(name);
    return name;
  }
}

/** A JS literal as biome formats it: single-quoted strings, `[a, b]` arrays. */
function lit(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  if (Array.isArray(value)) return `[${value.map(lit).join(', ')}]`;
  return JSON.stringify(value);
}

/** `  const name = [...];`, one element per line when it would pass 110 columns (as biome does). */
function arrayConst(name: string, values: unknown[]): string {
  const line = `  const ${name} = ${lit(values)};`;
  if (line.length <= 110) return line;
  return `  const ${name} = [\n${values.map((value) => `    ${lit(value)},\n`).join('')}  ];`;
}

/** The checks that decide something: metadata feeds the published JSON Schema only. */
const checksOf = (def: Def): CheckDef[] =>
  (def.checks ?? []).map((check) => check._zod.def).filter((c) => !METADATA_CHECKS.has(c.check));

const inner = (def: Def): Schema => {
  if (def.innerType === undefined) throw new Error(`${def.type} without an inner type`);
  return def.innerType;
};
const ident = (key: string) => `f_${key.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** The exact text of src/config/compiled-parser.ts (another schema: for the generator's own tests). */
export function generateConfigParser(schema: unknown = runtimeConfigSchema): string {
  const generator = new Generator();
  const root = generator.parser(schema as Schema);
  const functions = generator.output();
  const imports = [...generator.used].sort().join(', ');
  return `// GENERATED by scripts/generate-config-parser.ts from src/config/schema.ts (\`npm run schemas\`).
// Do not edit: the auto-recall hook's config validator, plain checks with no zod to load.
// test/unit/config/compiled-parser.test.ts fails when this file is stale and proves it agrees with
// the zod schema (accept/reject, output, the first issue's key path) on tables and random inputs.
import type { ConfigParser } from './load-core.js';
import { ${imports} } from './rules.js';
import type { RuntimeConfig } from './schema.js';

type Path = (string | number)[];
type Json = Record<string, unknown>;

/** Thrown inside this module only; becomes \`{ok: false, keyPath}\`. */
class Invalid {
  constructor(readonly keyPath: Path) {}
}

${functions}

export const compiledConfigParser: ConfigParser = (json) => {
  try {
    return { ok: true, config: ${root}(json, []) as RuntimeConfig };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, keyPath: error.keyPath };
    throw error;
  }
};
`;
}
