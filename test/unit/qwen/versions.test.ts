// policies/qwen/versions.json as the code reads it: every supported version has every fact, in the
// shape the types promise (JSON imports widen them), and the facts render depends on are applied.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import versions from '../../../policies/qwen/versions.json' with { type: 'json' };
import e2ePackage from '../../../scripts/e2e/package.json' with { type: 'json' };
import { generateSettingsTables, SETTINGS_TABLES_FILE } from '../../../scripts/qwen-facts/generate-tables.js';
import { TEMPLATES } from '../../../src/deploy/templates/templates.js';
import { satisfiesEngines } from '../../../src/host/node-engines.js';
import { SETTINGS_BASELINE } from '../../../src/policy/policies.js';
import { qwenSettingsFacts } from '../../../src/qwen/settings-facts.js';
import { SETTINGS_TABLES } from '../../../src/qwen/settings-tables.js';
import {
  DEFAULT_QWEN_VERSION,
  hookTimeoutValue,
  pinnedQwenFacts,
  qwenVersionFacts,
  ripgrepRel,
  SUPPORTED_QWEN_VERSIONS,
} from '../../../src/qwen/versions.js';

describe('supported Qwen versions', () => {
  // The list lives once, in versions.json; what must agree with it is pinned here instead of a copy.
  it('are the versions the e2e toolchain pins, in ascending order, and the default is one of them', () => {
    const pinned = [
      e2ePackage.dependencies['@qwen-code/qwen-code'],
      ...readdirSync(new URL('../../../scripts/e2e/qwen-versions/', import.meta.url)),
    ];
    expect([...SUPPORTED_QWEN_VERSIONS].sort()).toEqual(pinned.sort());
    const ascending = [...SUPPORTED_QWEN_VERSIONS].sort((a, b) =>
      a.localeCompare(b, 'en', { numeric: true }),
    );
    expect(SUPPORTED_QWEN_VERSIONS).toEqual(ascending);
    expect(SUPPORTED_QWEN_VERSIONS).toContain(DEFAULT_QWEN_VERSION);
    expect(SUPPORTED_QWEN_VERSIONS).toEqual(expect.arrayContaining(['0.24.0', '0.24.2', '0.24.3', '0.24.4']));
  });

  it('the bundled tables are generated from versions.json (`npm run schemas` after editing it)', () => {
    const committed = readFileSync(new URL(`../../../${SETTINGS_TABLES_FILE}`, import.meta.url), 'utf8');
    expect(committed).toBe(generateSettingsTables());
    const named = new Set(Object.values(versions.versions).map((v) => v.settings));
    expect(Object.keys(SETTINGS_TABLES).sort()).toEqual([...named].sort());
  });

  it.each(['../0.24.4', "0.24.4'", 'latest'])(
    'the generator refuses a settings name %j that is not a plain version (it becomes a path and an identifier)',
    (bad) => {
      const root = mkdtempSync(join(tmpdir(), 'qm-tables-'));
      mkdirSync(join(root, 'policies/qwen'), { recursive: true });
      writeFileSync(
        join(root, 'policies/qwen/versions.json'),
        JSON.stringify({ versions: { '0.24.4': { settings: bad } } }),
      );
      try {
        expect(() => generateSettingsTables(root)).toThrow(
          `versions.json: settings ${JSON.stringify(bad)} is not a version`,
        );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  it.each(SUPPORTED_QWEN_VERSIONS)('%s: every fact is present and of its type', (version) => {
    const entry = (versions.versions as Record<string, Record<string, unknown>>)[version]!;
    expect(Object.keys(entry).sort()).toEqual(
      [
        'defaultExcludedEnvVars',
        'hookTimeoutUnit',
        'modelClients',
        'nodeEngines',
        'packagingDefects',
        'qwenHomeSeed',
        'ripgrep',
        'settings',
        'settingsVersion',
      ].sort(),
    );
    expect(Number.isInteger(entry.settingsVersion) && (entry.settingsVersion as number) >= 1).toBe(true);
    // The rendered system settings and system defaults carry one `$version` for every supported Qwen
    // (the baseline's and the template's): a version with another format needs them made per version.
    expect({
      baseline: SETTINGS_BASELINE.baseline['$version'],
      systemDefaults: (TEMPLATES.systemDefaults as Record<string, unknown>)['$version'],
    }).toEqual({ baseline: entry.settingsVersion, systemDefaults: entry.settingsVersion });
    // The model clients the credential broker fronts: each names its key and base-URL variables, the
    // header the key travels in, and at least one request (paths relative to the base URL's path).
    for (const client of Object.values(entry.modelClients as Record<string, Record<string, unknown>>)) {
      expect(Object.keys(client).sort()).toEqual([
        'baseUrlVariable',
        'callerHeaders',
        'credentialHeader',
        'keyVariable',
        'routes',
      ]);
      // Header names as Node reports them (lower case), sorted, none twice.
      const headers = client.callerHeaders as string[];
      expect(headers.every((h) => /^[a-z0-9-]+$/.test(h))).toBe(true);
      expect(headers).toEqual([...new Set(headers)].sort());
      const routes = client.routes as Array<{ method: string; path: string }>;
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        expect(['GET', 'POST']).toContain(route.method);
        expect(route.path).toMatch(/^\/[a-z/]+$/);
      }
    }
    expect(['seconds', 'milliseconds']).toContain(entry.hookTimeoutUnit);
    // A range the engines check can read (it judges a pinned node by it where no package is there).
    expect(satisfiesEngines('v22.23.3', String(entry.nodeEngines))).toBe(true);
    expect(satisfiesEngines('v20.20.2', String(entry.nodeEngines))).toBe(false);
    // Seed files: plain relative paths, each a JSON document.
    for (const [rel, content] of Object.entries(entry.qwenHomeSeed as Record<string, string>)) {
      expect(
        rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
        rel,
      ).toBe(true);
      expect(() => JSON.parse(content), rel).not.toThrow();
    }
    for (const defect of entry.packagingDefects as unknown[])
      expect(['ripgrep-not-executable']).toContain(defect);
    // The settings table it names is extracted (policies/qwen/<dir>/) and bundled.
    expect(
      readdirSync(new URL(`../../../policies/qwen/${String(entry.settings)}/`, import.meta.url)).sort(),
    ).toEqual(['settings-descriptions.json', 'settings.json']);
    expect(Object.keys(SETTINGS_TABLES)).toContain(entry.settings);
    expect(Object.keys(qwenSettingsFacts(version)!).length).toBeGreaterThan(300);
  });

  it.each<[string, ReturnType<typeof qwenVersionFacts>]>([
    [
      '0.24.3',
      expect.objectContaining({
        version: '0.24.3',
        settingsFile: '0.24.2',
        hookTimeoutUnit: 'seconds',
        packagingDefects: [],
      }),
    ],
    [
      '0.24.4',
      expect.objectContaining({
        version: '0.24.4',
        settingsFile: '0.24.4',
        hookTimeoutUnit: 'seconds',
        packagingDefects: ['ripgrep-not-executable'],
        defaultExcludedEnvVars: ['DEBUG', 'DEBUG_MODE'],
      }),
    ],
    ['0.24.1', undefined],
    ['0.25.0', undefined],
    ['0.23.9', undefined],
    ['0.24.4-nightly', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
  ])('qwenVersionFacts(%j)', (version, expected) => {
    expect(qwenVersionFacts(version)).toEqual(expected);
    if (expected === undefined) expect(qwenSettingsFacts(version)).toBeUndefined();
  });

  it.each(SUPPORTED_QWEN_VERSIONS)(
    '%s: the bundled table is exactly the one extracted from it (a shared table must be identical)',
    async (version) => {
      const own = (
        await import(`../../../policies/qwen/${version}/settings.json`, { with: { type: 'json' } })
      ).default as { settings: unknown };
      expect(qwenSettingsFacts(version)).toEqual(own.settings);
    },
  );

  it('the settings keys differ where Qwen added some (0.24.4 over 0.24.0)', () => {
    const added = Object.keys(qwenSettingsFacts('0.24.4')!).filter(
      (k) => !(k in qwenSettingsFacts('0.24.0')!),
    );
    expect(added.sort()).toEqual(['serve.tokenQr', 'tools.executionSandbox', 'tools.workflowNameOnly']);
  });
});

describe('per-version facts render and verify apply', () => {
  it.each<[string | undefined, string]>([
    ['0.24.0', '0.24.0'],
    [undefined, DEFAULT_QWEN_VERSION],
    ['0.25.0', DEFAULT_QWEN_VERSION],
  ])('pinnedQwenFacts(%j) are the facts of %s', (version, expected) => {
    expect(pinnedQwenFacts(version)).toEqual(qwenVersionFacts(expected));
  });

  // Render and verify read the hook timeout's unit from the pinned package's version where it is
  // (test/unit/deploy/hook-timeout-unit.test.ts); a render staged without the package writes the default
  // version's unit, which verify on the target then flags for another unit. One unit across the
  // supported versions keeps every staged render valid wherever it lands.
  it.each(SUPPORTED_QWEN_VERSIONS)('%s reads hook timeouts in the default version’s unit', (version) => {
    expect(qwenVersionFacts(version)!.hookTimeoutUnit).toBe(
      qwenVersionFacts(DEFAULT_QWEN_VERSION)!.hookTimeoutUnit,
    );
  });

  it.each<[string, number, number]>([
    ['seconds', 8000, 8],
    ['seconds', 6500, 7],
    ['milliseconds', 8000, 8000],
  ])('a %s hook timeout for a %d ms budget is %d', (unit, ms, expected) => {
    expect(hookTimeoutValue({ hookTimeoutUnit: unit as 'seconds' | 'milliseconds' }, ms)).toBe(expected);
  });

  it.each<[string, string, string]>([
    ['linux', 'x64', 'vendor/ripgrep/x64-linux/rg'],
    ['darwin', 'arm64', 'vendor/ripgrep/arm64-darwin/rg'],
    ['win32', 'x64', 'vendor/ripgrep/x64-win32/rg.exe'],
  ])('the vendored ripgrep on %s %s is %s', (platform, arch, expected) => {
    expect(ripgrepRel(qwenVersionFacts('0.24.4')!, platform, arch)).toBe(expected);
  });
});
