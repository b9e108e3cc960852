// Measures, per supported Qwen version (policies/qwen/versions.json), the facts render and verify
// depend on, from the package the registry serves and from the copy scripts/e2e/setup.mjs installed:
// the hook timeout unit Qwen's own code applies, the default excluded environment variables, the
// settings keys (against policies/qwen/<version>/settings.json), the Node it needs, and the modes of
// the vendored ripgrep binaries in the registry tarball. Results feed docs/qwen-versions.md.
//
//   npm run e2e:setup
//   npx tsx test/e2e/measure/versions.ts
//
// Prints a Markdown table and every mismatch with the policy; writes
// .cache/e2e/measurements/versions.json. Exits 1 when a measured fact differs from the policy.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qwenSettingsFacts } from '../../../src/qwen/settings-facts.js';
import {
  DEFAULT_QWEN_VERSION,
  qwenVersionFacts,
  SUPPORTED_QWEN_VERSIONS,
} from '../../../src/qwen/versions.js';
import { e2eCacheDir, node22, qwenPackageDir } from '../harness/paths.js';

interface Measured {
  version: string;
  engines: string;
  entries: number;
  hookTimeoutUnit: 'seconds' | 'milliseconds' | 'unknown';
  legacyMillisecondThreshold: number | null;
  defaultExcludedEnvVars: string[] | null;
  settingsKeys: number;
  settingsMatchPolicy: boolean;
  /** Vendored ripgrep binaries in the registry tarball and their modes. */
  tarballRipgrep: Record<string, string>;
  /** `rg --version` of the installed linux-x64 binary (after setup's chmod), or the error. */
  ripgrepRuns: string;
}

function packageDirOf(version: string): string {
  return version === DEFAULT_QWEN_VERSION
    ? qwenPackageDir
    : join(e2eCacheDir, `qwen-${version}`, 'node_modules', '@qwen-code', 'qwen-code');
}

function chunkTexts(pkg: string): string[] {
  const dir = join(pkg, 'chunks');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .sort()
    .map((name) => readFileSync(join(dir, name), 'utf8'));
}

function countEntries(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    n++;
    if (entry.isDirectory()) n += countEntries(join(dir, entry.name));
  }
  return n;
}

/** The tarball's vendor/ripgrep/<target>/rg* entries and their modes, as `tar tv` lists them. */
function tarballRipgrep(version: string): Record<string, string> {
  const scratch = mkdtempSync(join(tmpdir(), 'qm-measure-versions-'));
  try {
    const name = execFileSync('npm', ['pack', `@qwen-code/qwen-code@${version}`, '--silent'], {
      cwd: scratch,
      encoding: 'utf8',
    }).trim();
    const listing = execFileSync('tar', ['tvzf', join(scratch, name)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const found: Record<string, string> = {};
    for (const line of listing.split('\n')) {
      const match = /^(\S+)\s.*\spackage\/(vendor\/ripgrep\/[^/]+\/rg(?:\.exe)?)$/.exec(line);
      if (match !== null) found[match[2]!] = match[1]!;
    }
    return found;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function measure(version: string): Measured {
  const pkg = packageDirOf(version);
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
    version: string;
    engines?: { node?: string };
  };
  const chunks = chunkTexts(pkg).join('\n');
  // Qwen's command-hook timeout reader (packages/core/src/hooks/hook-timeout.ts): seconds, except
  // values at or above the legacy threshold, which keep their old millisecond meaning with a warning.
  const threshold = /var LEGACY_MILLISECOND_TIMEOUT_THRESHOLD = ([\d.e]+);/.exec(chunks);
  const seconds =
    threshold !== null &&
    /var DEFAULT_COMMAND_HOOK_TIMEOUT_SECONDS = /.test(chunks) &&
    chunks.includes('hook timeouts are in seconds');
  const excluded = /var DEFAULT_EXCLUDED_ENV_VARS = (\[[^\]]*\]);/.exec(chunks);
  const extracted = JSON.parse(readFileSync(join('policies', 'qwen', version, 'settings.json'), 'utf8')) as {
    settings: Record<string, unknown>;
  };
  const bundled = qwenSettingsFacts(version) ?? {};
  let ripgrepRuns: string;
  try {
    ripgrepRuns = execFileSync(join(pkg, 'vendor', 'ripgrep', 'x64-linux', 'rg'), ['--version'], {
      encoding: 'utf8',
    }).split('\n')[0]!;
  } catch (error) {
    ripgrepRuns = `fails: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    version: manifest.version,
    engines: manifest.engines?.node ?? '(none)',
    entries: countEntries(pkg),
    hookTimeoutUnit: seconds ? 'seconds' : threshold === null ? 'unknown' : 'milliseconds',
    legacyMillisecondThreshold: threshold === null ? null : Number(threshold[1]),
    defaultExcludedEnvVars: excluded === null ? null : (JSON.parse(excluded[1]!) as string[]),
    settingsKeys: Object.keys(extracted.settings).length,
    settingsMatchPolicy: JSON.stringify(extracted.settings) === JSON.stringify(bundled),
    tarballRipgrep: tarballRipgrep(version),
    ripgrepRuns,
  };
}

/** Where a measurement disagrees with policies/qwen/versions.json. */
function mismatches(m: Measured): string[] {
  const facts = qwenVersionFacts(m.version);
  if (facts === undefined) return [`${m.version}: not in policies/qwen/versions.json`];
  const out: string[] = [];
  if (m.hookTimeoutUnit !== facts.hookTimeoutUnit)
    out.push(
      `${m.version}: hook timeout unit measured ${m.hookTimeoutUnit}, policy ${facts.hookTimeoutUnit}`,
    );
  if (JSON.stringify(m.defaultExcludedEnvVars) !== JSON.stringify(facts.defaultExcludedEnvVars))
    out.push(`${m.version}: default excluded env vars measured ${JSON.stringify(m.defaultExcludedEnvVars)}`);
  if (!m.settingsMatchPolicy) out.push(`${m.version}: settings.json differs from the bundled table`);
  // rg.exe needs no execute bit; the POSIX binaries do.
  const notExecutable = Object.entries(m.tarballRipgrep).some(
    ([file, mode]) => !file.endsWith('.exe') && !mode.includes('x'),
  );
  const listed = facts.packagingDefects.includes('ripgrep-not-executable');
  if (notExecutable !== listed)
    out.push(
      `${m.version}: ripgrep without execute bit measured ${notExecutable}, policy lists it: ${listed}`,
    );
  return out;
}

function main(): void {
  execFileSync(node22, ['--version']);
  const measured = SUPPORTED_QWEN_VERSIONS.map(measure);
  const outDir = join(e2eCacheDir, 'measurements');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'versions.json'), `${JSON.stringify(measured, null, 2)}\n`);
  console.log(
    '| Version | engines.node | Entries | Hook timeout | Default excluded env | Settings keys | POSIX rg modes in the tarball | rg after setup |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const m of measured) {
    const modes = [
      ...new Set(
        Object.entries(m.tarballRipgrep).flatMap(([file, mode]) => (file.endsWith('.exe') ? [] : [mode])),
      ),
    ].join(', ');
    console.log(
      `| ${m.version} | \`${m.engines}\` | ${m.entries} | ${m.hookTimeoutUnit} (≥ ${m.legacyMillisecondThreshold} read as ms) | ${(m.defaultExcludedEnvVars ?? []).map((v) => `\`${v}\``).join(', ')} | ${m.settingsKeys} | \`${modes}\` | ${m.ripgrepRuns} |`,
    );
  }
  const problems = measured.flatMap(mismatches);
  for (const problem of problems) console.log(`MISMATCH ${problem}`);
  if (problems.length > 0) process.exitCode = 1;
}

main();
