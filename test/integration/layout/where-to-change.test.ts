// docs/layout.md, "Where to change what", performed: every row's change is made on a copy of this
// repository in exactly the hand-edited files the row names (the test checks the row's list against
// the files it edits), then the row's generator runs, and the type-check and the tests that read or
// pin what changed pass on the copy. A second copy leaves out one named file per row, and the tests
// that tell a maintainer it is missing fail there: each named file is needed, and a miss is caught.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../fixtures/run-runtime.js';

interface Recipe {
  /** The row's first cell in docs/layout.md. */
  change: string;
  /** Repository path → its edit: exactly the hand-edited files of the row, in the row's order. */
  edits: Array<[string, (text: string) => string]>;
  /** The tests that pin the old value, which the row names as such ("the tests that pin it"). */
  pinning?: Array<[string, (text: string) => string]>;
  /** What the row says to run after the edits: `npm run schemas`, the golden renders' update (`vitest -u`). */
  regenerate?: Array<'schemas' | 'golden'>;
  /** The tests (unit or integration) that read or pin what changed: all pass on the copy. */
  tests: string[];
  /** Run on the copy with tsx after the generator: prints what the row promises. */
  probe?: { script: string; prints: string };
  /**
   * Left out of the second copy — a named file, or the golden update (the second copy runs only
   * `npm run schemas`) — and the test that then fails (its file and a part of its name).
   */
  missed?: { file?: string; failing: [string, string] };
}

/** A string replacement that must find its anchor (a recipe that silently edits nothing proves nothing). */
const after = (anchor: string, added: string) => (text: string) => {
  if (!text.includes(anchor)) throw new Error(`anchor not found: ${anchor}`);
  return text.replace(anchor, `${anchor}${added}`);
};

const RECIPES: Recipe[] = [
  {
    change: 'Add a Mem0 preset',
    edits: [
      // A new dated identifier of the OSS REST contract (same service family: no new fake).
      [
        'src/contracts/mem0-presets.ts',
        after("  'mem0-oss-2026-08': ossRest,", "\n  'mem0-oss-2099-01': ossRest,"),
      ],
      [
        'test/integration/providers/contract.test.ts',
        after("  ossRow('mem0-oss-2026-08'),", "\n  ossRow('mem0-oss-2099-01'),"),
      ],
    ],
    // A new identifier of an existing contract is an alias of its rows: admin.md's pinned rows gain it.
    pinning: [
      [
        'test/unit/deploy/admin-doc.test.ts',
        (text) =>
          text.replace(
            "'| `mem0-oss-2026-08` | `mem0-oss-rest-2026-08` |",
            "'| `mem0-oss-2026-08` | `mem0-oss-rest-2026-08`, `mem0-oss-2099-01` |",
          ),
      ],
    ],
    regenerate: ['schemas'],
    tests: [
      'test/integration/providers/contract.test.ts',
      'test/unit/deploy/admin-doc.test.ts',
      'test/unit/contracts/generate-schemas.test.ts',
      'test/unit/startup/validators.test.ts',
      'test/unit/config/load.test.ts',
    ],
    probe: {
      // The config schema, the deployment schema and the admin guide follow the table.
      script: `
        import { readFileSync } from 'node:fs';
        import { MEM0_PRESET_NAMES } from './src/contracts/mem0-presets.js';
        const schema = readFileSync('schema/deployment.schema.json', 'utf8');
        const guide = readFileSync('docs/admin.md', 'utf8');
        console.log(MEM0_PRESET_NAMES.includes('mem0-oss-2099-01'), schema.includes('"mem0-oss-2099-01"'),
          guide.includes('| \`mem0-oss-2099-01\` | \`mem0-oss-rest-2026-08\`, \`mem0-oss-2026-08\` |'));`,
      prints: 'true true true',
    },
    missed: {
      file: 'test/integration/providers/contract.test.ts',
      failing: ['test/integration/providers/contract.test.ts', 'has a row for every preset'],
    },
  },
  {
    change: 'Forbid an environment variable',
    edits: [
      [
        'policies/environment.json',
        (text) =>
          after(
            '"NODE_OPTIONS",',
            '\n      "QM_EXAMPLE_PRELOAD",',
          )(text).replace(
            '"NODE_OPTIONS": "injects',
            '"QM_EXAMPLE_PRELOAD": "loads code into the pinned programs (an example)",\n      "NODE_OPTIONS": "injects',
          ),
      ],
    ],
    tests: ['test/unit/launcher/env.test.ts', 'test/unit/deploy/deployment.test.ts'],
    probe: {
      // Render (deployment validation), verify and the launcher all judge a name with forbiddenReason.
      script: `
        import { forbiddenReason } from './src/policy/environment-names.js';
        import { ENVIRONMENT_POLICY } from './src/policy/policies.js';
        console.log(forbiddenReason('QM_EXAMPLE_PRELOAD', ENVIRONMENT_POLICY, 'posix'));`,
      prints: 'loads code into the pinned programs (an example)',
    },
  },
  {
    change: 'Add a profile option to deployment.json',
    // An option rendered into the system settings: the auto-recall hook's status line.
    edits: [
      [
        'src/deploy/deployment/schema.ts',
        after(
          "    timeoutMs: recallTimeoutMs('the prompt hook'),",
          "\n    statusMessage: z\n      .string()\n      .min(1)\n      .max(80)\n      .default('Retrieving external context')\n      .describe('What Qwen shows while the prompt hook searches'),",
        ),
      ],
      [
        'src/deploy/render/profile.ts',
        after(
          '    repositoryTrust: deployment.profiles[kind]!.repositoryTrust,',
          "\n    statusMessage: deployment.profiles['auto-recall']?.statusMessage ?? OMIT,",
        ),
      ],
      [
        'templates/auto-recall/system-settings.json',
        (text) =>
          text.replace(
            '"statusMessage": "Retrieving external context"',
            '"statusMessage": "{{statusMessage}}"',
          ),
      ],
      [
        // verify judges the managed hooks exactly, without deployment.json: it takes the line as rendered.
        'src/deploy/verify/checks/settings.ts',
        (text) =>
          after(
            '  const values = { ...pinnedValues(pins), ',
            "statusMessage: statusMessage ?? 'Retrieving external context', ",
          )(text)
            .replace(
              'function expectations(kind: ProfileKind, pins: Pins, guardModes: string) {',
              'function expectations(kind: ProfileKind, pins: Pins, guardModes: string, statusMessage?: string) {',
            )
            .replace(
              "expectations(kind, pins, findGuardModes(hooks) ?? DEFAULT_GUARD_MODES.join(','));",
              "expectations(\n    kind,\n    pins,\n    findGuardModes(hooks) ?? DEFAULT_GUARD_MODES.join(','),\n    findStatusMessage(hooks),\n  );",
            )
            .replace(
              'function findGuardModes(hooks: unknown): string | undefined {',
              [
                'function findStatusMessage(hooks: unknown): string | undefined {',
                '  const groups = isPlainObject(hooks) ? hooks.UserPromptSubmit : undefined;',
                '  const entry = Array.isArray(groups) && isPlainObject(groups[0]) ? (groups[0].hooks as unknown[])?.[0] : undefined;',
                "  return isPlainObject(entry) && typeof entry.statusMessage === 'string' ? entry.statusMessage : undefined;",
                '}',
                '',
                'function findGuardModes(hooks: unknown): string | undefined {',
              ].join('\n'),
            ),
      ],
      [
        // The sample values the template test renders with are render's.
        'test/unit/deploy/templates.test.ts',
        after("    'guard.modes': 'yolo',", "\n    statusMessage: 'Retrieving external context',"),
      ],
      [
        'docs/admin.md',
        after(
          '`timeoutMs` is the provider timeout:',
          ' (and `statusMessage`, auto-recall only: what Qwen shows while the hook searches)',
        ),
      ],
    ],
    regenerate: ['schemas'],
    tests: [
      'test/unit/deploy/templates.test.ts',
      'test/unit/deploy/render.test.ts',
      'test/unit/deploy/verify-mutations.test.ts',
      'test/unit/deploy/deployment.test.ts',
      'test/unit/contracts/generate-schemas.test.ts',
    ],
    probe: {
      script: `
        import { parseDeploymentValue } from './src/deploy/deployment/parse.js';
        import { readFileSync } from 'node:fs';
        const raw = JSON.parse(readFileSync('examples/deployments/auto-recall.json', 'utf8'));
        raw.profiles['auto-recall'].statusMessage = 'Asking the handbook';
        const parsed = parseDeploymentValue(raw);
        console.log(parsed.deployment.profiles['auto-recall'].statusMessage);`,
      prints: 'Asking the handbook',
    },
    missed: {
      file: 'src/deploy/verify/checks/settings.ts',
      failing: ['test/unit/deploy/verify-mutations.test.ts', 'passes every check'],
    },
  },
  {
    change: 'Change a cap, budget or timeout',
    // The runtime config's size cap, 64 KiB → 128 KiB.
    edits: [
      [
        'src/base/limits.ts',
        (text) =>
          text.replace('export const MAX_CONFIG_BYTES = 65_536;', 'export const MAX_CONFIG_BYTES = 131_072;'),
      ],
      [
        'docs/contracts.md',
        (text) =>
          text
            .replace('| `MAX_CONFIG_BYTES` | 64 KiB |', '| `MAX_CONFIG_BYTES` | 128 KiB |')
            .replace('regular file, ≤ 64 KiB,', 'regular file, ≤ 128 KiB,'),
      ],
    ],
    pinning: [
      [
        'test/unit/config/load.test.ts',
        (text) =>
          text.replace(
            "['over 64 KiB', 'file-too-large', 1, () => env(writeConfig(' '.repeat(65_537)))]",
            "['over 128 KiB', 'file-too-large', 1, () => env(writeConfig(' '.repeat(131_073)))]",
          ),
      ],
      [
        'test/unit/reliability/config-loader-fuzz.test.ts',
        (text) => text.replace('if (content.length > 65_536)', 'if (content.length > 131_072)'),
      ],
    ],
    regenerate: ['schemas'],
    tests: [
      'test/unit/config/load.test.ts',
      'test/unit/reliability/config-loader-fuzz.test.ts',
      'test/unit/base/errors.test.ts',
    ],
    probe: {
      script: `
        import { CONFIGURATION_MESSAGES } from './src/base/errors.js';
        console.log(CONFIGURATION_MESSAGES['file-too-large']);`,
      prints: 'The external context configuration file is larger than 128 KiB.',
    },
    missed: {
      file: 'test/unit/config/load.test.ts',
      failing: ['test/unit/config/load.test.ts', 'over 64 KiB'],
    },
  },
  {
    change: "Change what a profile's settings contain",
    edits: [
      [
        'templates/<kind>/system-settings.json'.replace('<kind>', 'auto-recall'),
        after('{\n', '  "ui": { "hideTips": true },\n'),
      ],
    ],
    regenerate: ['golden'],
    tests: [
      'test/unit/deploy/render.test.ts',
      'test/unit/deploy/templates.test.ts',
      'test/unit/deploy/verify-mutations.test.ts',
    ],
    probe: {
      script: `
        import { readFileSync } from 'node:fs';
        const golden = readFileSync('test/unit/deploy/__golden__/auto-recall.txt', 'utf8');
        console.log(golden.includes('"hideTips": true'));`,
      prints: 'true',
    },
    missed: {
      failing: [
        'test/unit/deploy/render.test.ts',
        'golden renders (every profile × platform) examples/deployments/auto-recall.json',
      ],
    },
  },
];

/** The row of docs/layout.md's table for `change`. */
function rowText(change: string): string {
  const doc = readFileSync(join(ROOT, 'docs', 'layout.md'), 'utf8');
  const row = doc.split('\n').find((line) => line.startsWith(`| ${change} |`));
  if (row === undefined) throw new Error(`docs/layout.md has no row "${change}"`);
  return row;
}

/** The named files of a row: the backticked paths and the linked docs of its "Hand-edited files" cell. */
function rowFiles(change: string): string[] {
  const cell = rowText(change).split(' | ')[1] ?? '';
  const paths = [...cell.matchAll(/`([\w.<>/-]+\/[\w.<>*-]+|[\w-]+\.(?:ts|json|md))`/g)].map((m) => m[1]!);
  const docs = [...cell.matchAll(/\]\(([\w-]+\.md)(#[\w-]*)?\)/g)].map((m) => `docs/${m[1]}${m[2] ?? ''}`);
  return [...paths, ...docs];
}

/** Every file below `dir` (repository-relative). */
const listFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(ROOT.length).replace(/^\//, ''));

/** `templates/<kind>/x.json` names `templates/auto-recall/x.json`. */
const names = (pattern: string, file: string) =>
  new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<[\w-]+>/g, '[^/]+')}$`).test(file);

/** A copy of the repository's sources (node_modules linked, no build output), with `recipes` applied. */
function copyWith(label: string, recipes: ReadonlyArray<Recipe>, leaveOut: ReadonlySet<string>): string {
  const dir = mkdtempSync(join(tmpdir(), `qm-where-${label}-`));
  const skipped = new Set(['node_modules', 'dist', 'coverage', '.cache', '.git', '.vitest', '.work']);
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (source) => !skipped.has(source.slice(source.lastIndexOf('/') + 1)),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const recipe of recipes) {
    for (const [file, edit] of [...recipe.edits, ...(recipe.pinning ?? [])]) {
      if (leaveOut.has(`${recipe.change}:${file}`)) continue;
      writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
    }
  }
  return dir;
}

/** Runs a command in `cwd` with a clean environment (a test run inside this one must not see its variables). */
function run(cwd: string, argv: string[], timeoutMs: number): SpawnSyncReturns<string> {
  const result = spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', CI: '1' },
  });
  return result;
}

const tsx = (cwd: string, script: string, timeoutMs = 120_000) =>
  run(cwd, [process.execPath, '--import', 'tsx', script], timeoutMs);

/** `npm run schemas` in `cwd`. */
function generate(cwd: string): void {
  const generated = tsx(cwd, 'scripts/generate-schemas.ts');
  if (generated.status !== 0) throw new Error(`npm run schemas failed in ${cwd}:\n${generated.stderr}`);
}

interface TestReport {
  testResults: Array<{
    name: string;
    assertionResults: Array<{ fullName: string; status: string }>;
  }>;
}

/** Runs `files` with vitest in `cwd` (unit and integration projects); the JSON report. */
function vitest(cwd: string, files: string[], extra: string[] = []): TestReport {
  const out = join(cwd, 'vitest-report.json');
  const result = run(
    cwd,
    [
      process.execPath,
      'node_modules/vitest/vitest.mjs',
      'run',
      '--project',
      'unit',
      '--project',
      'integration',
      '--reporter',
      'json',
      '--outputFile',
      out,
      // Files first: `--update` takes an optional value and would swallow a file after it.
      ...files,
      ...extra,
    ],
    1_200_000,
  );
  // No report means vitest itself failed (not a test in it): say how, with its own words.
  if (!existsSync(out))
    throw new Error(
      `vitest wrote no report in ${cwd} (status ${result.status}, signal ${result.signal}, ${result.error?.message ?? 'no spawn error'}):\n${(result.stderr ?? '').slice(-4000)}\n${(result.stdout ?? '').slice(-4000)}`,
    );
  return JSON.parse(readFileSync(out, 'utf8')) as TestReport;
}

/** file → every assertion's full name and status. */
function outcomes(report: TestReport, cwd: string): Map<string, Array<[string, string]>> {
  const map = new Map<string, Array<[string, string]>>();
  for (const file of report.testResults) {
    map.set(
      file.name.slice(cwd.length + 1),
      file.assertionResults.map((a) => [a.fullName, a.status]),
    );
  }
  return map;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('docs/layout.md "Where to change what": every row names files and sections that exist', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'layout.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| Change | Hand-edited files | Then |'));
  const rows = table
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('| '))
    .map((line) => line.split(' | ')[0]!.slice(2));

  it('performs every row but the three checked by hand (a new release; the help texts)', () => {
    expect(rows.filter((row) => !RECIPES.some((r) => r.change === row))).toEqual([
      'Support another Qwen version',
      'Support another OpenClaw version',
      'Change an exit code',
    ]);
  });

  it.each(rows)('%s', (change) => {
    for (const file of rowFiles(change)) {
      const [path, anchor] = file.split('#') as [string, string | undefined];
      const dir = path.slice(0, path.lastIndexOf('/'));
      // A pattern (`templates/<kind>/…`) names at least one file; a plain path exists.
      const existing = path.includes('<')
        ? listFiles(dir.replace(/\/[^/]*<[^/]+>.*$/, '')).filter((f) => names(path, f))
        : existsSync(join(ROOT, path))
          ? [path]
          : [];
      expect([file, existing.length > 0]).toEqual([file, true]);
      if (anchor !== undefined) {
        const headings = readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('#'))
          .map((line) =>
            line
              .replace(/^#+ /, '')
              .toLowerCase()
              .replace(/[^\w\s-]/g, '')
              .replace(/\s/g, '-'),
          );
        expect([file, headings]).toEqual([file, expect.arrayContaining([anchor])]);
      }
    }
  });
});

describe('docs/layout.md "Where to change what", performed on a copy of the repository', () => {
  let done: string;
  let doneTests: Map<string, Array<[string, string]>>;
  let typecheck: SpawnSyncReturns<string>;
  let missed: string;
  let missedTests: Map<string, Array<[string, string]>>;

  beforeAll(() => {
    done = copyWith('done', RECIPES, new Set());
    dirs.push(done);
    const regenerate = new Set(RECIPES.flatMap((r) => r.regenerate ?? []));
    if (regenerate.has('schemas')) generate(done);
    // The golden renders are vitest snapshots: their update is a generation, reviewed as a diff.
    if (regenerate.has('golden')) vitest(done, ['test/unit/deploy/render.test.ts'], ['--update']);
    typecheck = run(
      done,
      [process.execPath, 'node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json'],
      900_000,
    );
    doneTests = outcomes(vitest(done, [...new Set(RECIPES.flatMap((r) => r.tests))]), done);

    const leaveOut = new Set(
      RECIPES.flatMap((r) => (r.missed?.file !== undefined ? [`${r.change}:${r.missed.file}`] : [])),
    );
    missed = copyWith('missed', RECIPES, leaveOut);
    dirs.push(missed);
    if (regenerate.has('schemas')) generate(missed);
    const failing = [...new Set(RECIPES.flatMap((r) => (r.missed ? [r.missed.failing[0]] : [])))];
    missedTests = outcomes(vitest(missed, failing), missed);
  }, 3_000_000);

  it('every change type-checks (tsc over the copy with all of them)', () => {
    expect({ status: typecheck.status, out: typecheck.stdout }).toEqual({ status: 0, out: '' });
  });

  describe.each(RECIPES)('$change', (recipe) => {
    it("names exactly the files this change edits by hand (the row's list, in its order)", () => {
      const named = rowFiles(recipe.change).map((file) => file.split('#')[0]!);
      const edited = recipe.edits.map(([file]) => file);
      expect(named.length, `${recipe.change}: ${named.join(', ')}`).toBe(edited.length);
      for (const [i, file] of edited.entries())
        expect([named[i], names(named[i]!, file)]).toEqual([named[i], true]);
      // A changed value is pinned by tests on purpose; the row says they change with it.
      expect(rowText(recipe.change).includes('the tests that pin'), recipe.change).toBe(
        recipe.pinning !== undefined,
      );
    });

    it('the tests that read or pin it pass on the copy', () => {
      for (const file of recipe.tests) {
        const results = doneTests.get(file);
        expect(results, `${file} did not run`).toBeDefined();
        expect(results!.length, file).toBeGreaterThan(0);
        expect(
          results!.filter(([, status]) => status !== 'passed'),
          file,
        ).toEqual([]);
      }
    });

    if (recipe.probe) {
      const probe = recipe.probe;
      it('does what the row promises', () => {
        writeFileSync(join(done, 'probe.ts'), probe.script);
        const result = tsx(done, 'probe.ts');
        expect({ status: result.status, stdout: result.stdout.trim() }).toEqual({
          status: 0,
          stdout: probe.prints,
        });
      });
    }

    if (recipe.missed) {
      const { file, failing } = recipe.missed;
      it(`without ${file ?? 'the golden update'}, ${failing[0]} fails ("${failing[1]}")`, () => {
        const results = missedTests.get(failing[0]) ?? [];
        expect(
          results.filter(([name, status]) => name.includes(failing[1]) && status === 'failed'),
        ).toHaveLength(1);
      });
    }
  });
});
