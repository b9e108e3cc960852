// Generates the validators of the start-up paths (src/startup/validators/) from their zod schemas by
// walking each schema's definition (`_zod.def`): the auto-recall hook's runtime config, and the
// launcher's manifest.json and launch.json. They answer what zod answers — the same output, the same
// issues (code, path, expected type, unknown keys) in the same order — with plain checks and no zod to
// load (about 8 ms of a hook's start; docs/performance.md). The zod schemas stay the one place each
// shape is written: `npm run schemas` regenerates these files, and test/unit/startup/validators.test.ts
// fails when one is stale and proves each agrees with its schema on tables and random documents.
// A zod feature this generator does not know makes it throw, never check more loosely.
import { posix } from 'node:path';
import * as configRules from '../src/config/rules.js';
import { runtimeConfigSchema } from '../src/config/schema.js';
import { installManifestSchema } from '../src/contracts/install-manifest-schema.js';
import { launchPlanSchema } from '../src/contracts/launch-plan-schema.js';
import { openclawLaunchPlanSchema } from '../src/contracts/openclaw-launch.js';

export interface ValidatorTarget {
  /** The generated file, relative to the repository root. */
  file: string;
  /** The zod schema it is generated from, and the file that defines it (named in the header). */
  schema: unknown;
  from: string;
  /** The exported function: `(value: unknown) => Validation<type>`. */
  name: string;
  /** The output type and the module (relative to the root) that exports it. */
  type: { name: string; module: string };
}

/** Every generated validator; add a schema here and run `npm run schemas`. */
export const VALIDATORS: readonly ValidatorTarget[] = [
  {
    file: 'src/startup/validators/runtime-config.ts',
    schema: runtimeConfigSchema,
    from: 'src/config/schema.ts',
    name: 'validateRuntimeConfig',
    type: { name: 'RuntimeConfig', module: 'src/config/schema.ts' },
  },
  {
    file: 'src/startup/validators/install-manifest.ts',
    schema: installManifestSchema,
    from: 'src/contracts/install-manifest-schema.ts',
    name: 'validateInstallManifest',
    type: { name: 'InstallManifest', module: 'src/contracts/install-manifest.ts' },
  },
  {
    file: 'src/startup/validators/launch-plan.ts',
    schema: launchPlanSchema,
    from: 'src/contracts/launch-plan-schema.ts',
    name: 'validateLaunchPlan',
    type: { name: 'LaunchPlan', module: 'src/contracts/launch-plan.ts' },
  },
  {
    file: 'src/startup/validators/openclaw-launch-plan.ts',
    schema: openclawLaunchPlanSchema,
    from: 'src/contracts/openclaw-launch.ts',
    name: 'validateOpenclawLaunchPlan',
    type: { name: 'OpenclawLaunchPlan', module: 'src/contracts/openclaw-launch.ts' },
  },
];

/**
 * Where refinements (z.refine, z.overwrite) are exported by name: a generated file imports a rule
 * from here, so it is written once. A refinement found nowhere here fails generation.
 */
const RULE_MODULES: readonly { file: string; exports: Record<string, unknown> }[] = [
  { file: 'src/config/rules.ts', exports: configRules },
];

const VALIDATION_MODULE = 'src/base/validation.ts';

/** zod checks that only annotate the schema (z.describe, z.meta): they accept every value. */
const METADATA_CHECKS: ReadonlySet<string> = new Set(['describe', 'meta']);

/** The checks emitted below; any other is refused. */
const KNOWN_CHECKS: ReadonlySet<string> = new Set([
  'string_format',
  'greater_than',
  'less_than',
  'overwrite',
  'custom',
]);

/** The slice of zod's definition objects this generator reads. */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  options?: Schema[];
  discriminator?: string;
  innerType?: Schema;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  partial?: boolean;
  mode?: string;
  defaultValue?: unknown;
  values?: unknown[];
  entries?: Record<string, unknown>;
  format?: string;
  check?: string;
  abort?: boolean;
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
  abort?: boolean;
  when?: unknown;
}
interface Schema {
  _zod: { def: Def; optin?: string; optout?: string };
}

const unsupported = (what: string) =>
  new Error(
    `${what} is not supported by scripts/generate-validators.ts (extend it, with a differential test)`,
  );

class Generator {
  private readonly functions: string[] = [];
  private readonly names = new Map<Schema, string>();
  /** Function body → its name: schemas that check alike share one function. */
  private readonly bodies = new Map<string, string>();
  /** Rule name → the module it is imported from. */
  readonly rules = new Map<string, string>();

  /** The function that validates `schema`: `(v: unknown, p: Path, issues: Issue[]) => unknown`. */
  validator(schema: Schema): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    const def = schema._zod.def;
    const checks = checksOf(def);
    let name = this.emit(this.parse(def));
    if (checks.length > 0) {
      // zod's order: the type's own parse, then its checks, unless the parse raised an aborting issue.
      const binding = checks.some((c) => c.check === 'overwrite') ? 'let' : 'const';
      const lines = ['  const s = issues.length;', `  ${binding} x = ${name}(v, p, issues);`];
      lines.push('  if (aborted(issues, s)) return x;', ...this.checks(checks), '  return x;');
      name = this.emit(lines.join('\n'));
    }
    this.names.set(schema, name);
    return name;
  }

  output(): string {
    return this.functions.join('\n\n');
  }

  private emit(body: string): string {
    const known = this.bodies.get(body);
    if (known !== undefined) return known;
    const name = `v${this.bodies.size}`;
    this.bodies.set(body, name);
    this.functions.push(`function ${name}(v: unknown, p: Path, issues: Issue[]): unknown {\n${body}\n}`);
    return name;
  }

  private parse(def: Def): string {
    switch (def.type) {
      case 'object':
        return this.object(def);
      case 'union':
        return def.discriminator === undefined ? this.union(def) : this.discriminated(def);
      case 'record':
        return this.record(def);
      case 'array':
        return [
          `  if (!Array.isArray(v)) return fail(issues, p, 'array');`,
          '  const out: unknown[] = new Array(v.length);',
          `  for (let i = 0; i < v.length; i++) out[i] = ${this.validator(need(def.element, 'element'))}(v[i], [...p, i], issues);`,
          '  return out;',
        ].join('\n');
      case 'string':
        return `  if (typeof v !== 'string') return fail(issues, p, 'string');\n  return v;`;
      case 'boolean':
        return `  if (typeof v !== 'boolean') return fail(issues, p, 'boolean');\n  return v;`;
      case 'number':
        return this.number(def);
      case 'literal':
        return this.oneOf(def.values ?? []);
      case 'enum':
        return this.oneOf(Object.values(def.entries ?? {}));
      case 'optional': {
        const inner = need(def.innerType, 'inner type');
        if (inner._zod.optin === 'defaulted') throw unsupported('an optional around a default');
        return `  return v === undefined ? undefined : ${this.validator(inner)}(v, p, issues);`;
      }
      case 'default': {
        const inner = this.validator(need(def.innerType, 'inner type'));
        const value = lit(def.defaultValue);
        return [
          `  if (v === undefined) return ${value};`,
          `  const out = ${inner}(v, p, issues);`,
          `  return out === undefined ? ${value} : out;`,
        ].join('\n');
      }
      default:
        throw unsupported(`zod type ${def.type}`);
    }
  }

  /** A finite number; for z.int() its format check comes first (a fraction aborts, like a wrong type). */
  private number(def: Def): string {
    const lines = [`  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(issues, p, 'number');`];
    if (def.check === 'number_format') {
      if (def.format !== 'safeint' || def.abort === true) throw unsupported(`number format ${def.format}`);
      lines.push(
        `  if (!Number.isInteger(v)) return fail(issues, p, 'int');`,
        when(
          '!Number.isSafeInteger(v)',
          `issues.push({ code: v > 0 ? 'too_big' : 'too_small', path: p, continue: true });`,
        ),
      );
    } else if (def.format !== undefined) {
      throw unsupported(`number format ${def.format}`);
    }
    lines.push('  return v;');
    return lines.join('\n');
  }

  /** A literal or an enum: an array, not an object lookup, so `toString` or `__proto__` never names a value. */
  private oneOf(values: unknown[]): string {
    if (!values.every((value) => ['string', 'number', 'boolean'].includes(typeof value))) {
      throw unsupported(
        `a literal or enum value ${String(values.find((value) => typeof value === 'object'))}`,
      );
    }
    if (values.length === 1) {
      return [
        when(`v !== ${lit(values[0])}`, `issues.push({ code: 'invalid_value', path: p });`),
        '  return v;',
      ].join('\n');
    }
    return [
      arrayConst('values', values),
      when('!values.includes(v as never)', `issues.push({ code: 'invalid_value', path: p });`),
      '  return v;',
    ].join('\n');
  }

  /** zod's object: every shape key in order, then the unknown keys (strict at every level). */
  private object(def: Def): string {
    if (def.catchall?._zod.def.type !== 'never') throw new Error('only strict objects are supported');
    const shape = def.shape ?? {};
    const lines = [
      `  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');`,
      '  const o = v as Json;',
      '  const out: Json = {};',
    ];
    for (const [key, child] of Object.entries(shape)) {
      if (key in Object.prototype) throw unsupported(`the object key ${key}`);
      lines.push(...this.property(key, child));
    }
    // An unknown key (also `__proto__` from JSON) is an issue, never copied into the output.
    lines.push(
      arrayConst('keys', Object.keys(shape)),
      '  const unknown = Object.keys(o).filter((key) => !keys.includes(key));',
      when(
        'unknown.length > 0',
        `issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });`,
      ),
      '  return out;',
    );
    return lines.join('\n');
  }

  /**
   * zod's rule for one property: an absent optional key adds nothing; an absent required one is an
   * issue of its own type (every type here but optional and default refuses undefined).
   */
  private property(key: string, child: Schema): string[] {
    const k = lit(key);
    const assign = (indent: string) =>
      call(indent, `out[${k}]`, this.validator(child), [`o[${k}]`, `[...p, ${k}]`, 'issues']);
    const { optin, optout } = child._zod;
    if (optin === 'optional' && optout === 'optional') {
      const line = `  if (${k} in o) ${assign('').trimStart()}`;
      return [line.length <= 110 && !line.includes('\n') ? line : `  if (${k} in o)\n${assign('    ')}`];
    }
    if (optin === 'defaulted' && optout === undefined) return [assign('  ')];
    if (optin !== undefined || optout !== undefined)
      throw unsupported(`a property that is ${optin}/${optout}`);
    return [assign('  ')];
  }

  /** zod's record: own keys in order; `__proto__` dropped (as zod drops it), never set as a prototype. */
  private record(def: Def): string {
    if (def.mode !== undefined) throw unsupported(`a ${def.mode} record`);
    const keyDef = need(def.keyType, 'key type')._zod.def;
    const value = this.validator(need(def.valueType, 'value type'));
    const lines = [
      `  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'record');`,
      '  const o = v as Json;',
      '  const out: Json = {};',
    ];
    if (keyDef.type === 'string' && checksOf(keyDef).length === 0) {
      lines.push(
        '  for (const key of Object.keys(o)) {',
        `    if (key !== '__proto__') out[key] = ${value}(o[key], [...p, key], issues);`,
        '  }',
      );
    } else if (keyDef.type === 'enum' && def.partial === true && checksOf(keyDef).length === 0) {
      const keys = Object.values(keyDef.entries ?? {});
      if (!keys.every((key) => typeof key === 'string' && !/^\d/.test(key))) {
        throw unsupported('a record key enum with a non-string or numeric value');
      }
      lines.push(
        arrayConst('keys', keys),
        '  const unknown: string[] = [];',
        '  for (const key of Object.keys(o)) {',
        "    if (key === '__proto__') continue;",
        '    if (keys.includes(key)) out[key] = ' + `${value}(o[key], [...p, key], issues);`,
        '    else unknown.push(key);',
        '  }',
        when(
          'unknown.length > 0',
          `issues.push({ code: 'unrecognized_keys', path: p, keys: unknown, continue: true });`,
        ),
      );
    } else {
      throw unsupported(`a record keyed by a ${keyDef.type}${def.partial === true ? '' : ' (not partial)'}`);
    }
    lines.push('  return out;');
    return lines.join('\n');
  }

  /** A discriminated union: a non-object fails here, an unknown discriminator at its key. */
  private discriminated(def: Def): string {
    const key = need(def.discriminator, 'discriminator');
    const k = lit(key);
    const lines = [
      `  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(issues, p, 'object');`,
      `  switch ((v as Json)[${k}]) {`,
    ];
    for (const option of def.options ?? []) {
      const values = option._zod.def.shape?.[key]?._zod.def.values ?? [];
      if (values.length === 0) throw unsupported(`a union option whose ${key} is not a literal`);
      for (const value of values) lines.push(`    case ${lit(value)}:`);
      lines.push(`      return ${this.validator(option)}(v, p, issues);`);
    }
    lines.push(
      '    default:',
      `      issues.push({ code: 'invalid_union', path: [...p, ${k}] });`,
      '      return v;',
      '  }',
    );
    return lines.join('\n');
  }

  /**
   * zod's union: the first option without issues wins; else the one option whose issues do not abort
   * (say, only unknown keys) gives its issues; else one invalid_union.
   */
  private union(def: Def): string {
    const options = def.options ?? [];
    if (options.length === 1) return `  return ${this.validator(options[0]!)}(v, p, issues);`;
    const lines: string[] = [];
    options.forEach((option, i) => {
      lines.push(
        `  const i${i}: Issue[] = [];`,
        `  const o${i} = ${this.validator(option)}(v, p, i${i});`,
        `  if (i${i}.length === 0) return o${i};`,
      );
    });
    const found = options.map((_, i) => `i${i}`).join(', ');
    lines.push(
      `  const open = [${found}].filter((found) => !aborted(found, 0));`,
      '  if (open.length === 1) {',
      '    issues.push(...open[0]!);',
      ...options.slice(0, -1).map((_, i) => `    if (open[0] === i${i}) return o${i};`),
      `    return o${options.length - 1};`,
      '  }',
      `  issues.push({ code: 'invalid_union', path: p });`,
      '  return v;',
    );
    return lines.join('\n');
  }

  /** The schema's checks in order, on `x` (all at the value's path unless the check names one). */
  private checks(checks: CheckDef[]): string[] {
    const lines: string[] = [];
    for (const c of checks) {
      if (!KNOWN_CHECKS.has(c.check)) throw unsupported(`check ${c.check}`);
      if (c.abort === true || c.when !== undefined)
        throw unsupported(`an aborting or conditional ${c.check}`);
      const at = c.path === undefined || c.path.length === 0 ? 'p' : `[...p, ${c.path.map(lit).join(', ')}]`;
      const issue = (code: string) => `issues.push({ code: '${code}', path: ${at}, continue: true });`;
      if (c.check === 'string_format' && c.format === 'regex' && c.pattern !== undefined) {
        lines.push(when(`!${String(c.pattern)}.test(x as string)`, issue('invalid_format')));
      } else if (c.check === 'greater_than') {
        lines.push(when(`!((x as number) ${c.inclusive ? '>=' : '>'} ${c.value})`, issue('too_small')));
      } else if (c.check === 'less_than') {
        lines.push(when(`!((x as number) ${c.inclusive ? '<=' : '<'} ${c.value})`, issue('too_big')));
      } else if (c.check === 'overwrite') {
        lines.push(`  x = ${this.rule(c.tx)}(x as never);`);
      } else if (c.check === 'custom') {
        lines.push(when(`!${this.rule(c.fn)}(x as never)`, issue('custom')));
      } else {
        throw unsupported(`check ${c.check}${c.format === undefined ? '' : ` (${c.format})`}`);
      }
    }
    return lines;
  }

  private rule(fn: unknown): string {
    for (const { file, exports } of RULE_MODULES) {
      for (const [name, value] of Object.entries(exports)) {
        if (value !== fn) continue;
        this.rules.set(name, file);
        return name;
      }
    }
    throw new Error(
      `a refinement is not exported from any of ${RULE_MODULES.map((m) => m.file).join(', ')}: ${String(fn)}`,
    );
  }
}

/** A JS literal as biome formats it: single-quoted strings, `[a, b]` arrays. */
function lit(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  if (Array.isArray(value)) return `[${value.map(lit).join(', ')}]`;
  if (value !== null && typeof value === 'object') throw unsupported('an object default');
  return JSON.stringify(value);
}

/** `  if (condition) statement`, the statement on its own line past 110 columns (as biome does). */
function when(condition: string, statement: string): string {
  const line = `  if (${condition}) ${statement}`;
  return line.length <= 110 ? line : `  if (${condition})\n    ${statement}`;
}

/** `target = fn(args);`, the arguments one per line past 110 columns (as biome does). */
function call(indent: string, target: string, fn: string, args: string[]): string {
  const line = `${indent}${target} = ${fn}(${args.join(', ')});`;
  if (line.length <= 110) return line;
  return `${indent}${target} = ${fn}(\n${args.map((arg) => `${indent}  ${arg},\n`).join('')}${indent});`;
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

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`a zod definition without its ${what}`);
  return value;
}

/** `to` as imported from the generated file `from` (both relative to the root, `.ts` → `.js`). */
function importPath(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The exact text of a generated validator (`schema` overrides the target's: the generator's own tests). */
export function generateValidator(target: ValidatorTarget, schema: unknown = target.schema): string {
  const generator = new Generator();
  const root = generator.validator(schema as Schema);
  const functions = generator.output();
  const byModule = new Map<string, string[]>();
  for (const [name, file] of generator.rules) byModule.set(file, [...(byModule.get(file) ?? []), name]);
  const imports = [
    `import { aborted, type Issue, type Validation } from '${importPath(target.file, VALIDATION_MODULE)}';`,
    `import type { ${target.type.name} } from '${importPath(target.file, target.type.module)}';`,
    ...[...byModule].map(
      ([file, names]) => `import { ${names.sort().join(', ')} } from '${importPath(target.file, file)}';`,
    ),
  ].sort((a, b) => moduleOf(a).localeCompare(moduleOf(b)));
  return `// GENERATED from ${target.from} by scripts/generate-validators.ts (\`npm run schemas\`); do not edit.
// ${target.name}: the zod schema's answer (output, issues in order) with plain checks and no zod to
// load. test/unit/startup/validators.test.ts fails when this file is stale and proves the two agree.
${imports.join('\n')}

type Path = (string | number)[];
type Json = Record<string, unknown>;

/** An invalid_type issue, which stops the value's checks. */
function fail(issues: Issue[], p: Path, expected: string): undefined {
  issues.push({ code: 'invalid_type', path: p, expected });
  return undefined;
}

${functions}

/** For values JSON.parse makes (strings, numbers, booleans, null, arrays and plain objects). */
export function ${target.name}(value: unknown): Validation<${target.type.name}> {
  const issues: Issue[] = [];
  const out = ${root}(value, [], issues);
  return issues.length === 0 ? { ok: true, value: out as ${target.type.name} } : { ok: false, issues };
}
`;
}

const moduleOf = (line: string) => /from '([^']+)'/.exec(line)?.[1] ?? '';

/** File path → exact text, for every entry of VALIDATORS. */
export function generateValidators(): Map<string, string> {
  return new Map(VALIDATORS.map((target) => [target.file, generateValidator(target)]));
}
