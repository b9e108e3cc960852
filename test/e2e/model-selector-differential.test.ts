// The launcher's reading of a model selector (src/qwen/model-selector.ts) against Qwen 0.24.4's own
// (`resolveModelId`, loaded from the package's bundle): for every selector the auth type both name is
// the same. A selector Qwen refuses to parse (`anthropic:` with no model id) loads no agent at all.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { authTypesOf, selectorAuthType } from '../../src/qwen/model-selector.js';
import { qwenSettingsFacts } from '../../src/qwen/settings-facts.js';
import { ensureE2eToolchain, qwenPackageDir } from './harness/paths.js';

const AUTH_TYPES = authTypesOf(qwenSettingsFacts('0.24.4')!);

const SELECTORS = [
  ...AUTH_TYPES.flatMap((a) => [`${a}:m`, ` ${a} : m `, `\t${a}:m`, `\u00a0${a}:m`, `${a.toUpperCase()}:m`]),
  ...AUTH_TYPES.flatMap((a) => [`${a}`, `${a}:`, `${a}:a:b`, `x${a}:m`, `${a}x:m`, `${a}/m:tag`]),
  'inherit',
  'fast',
  'qwen3-coder-plus',
  'org/model:latest',
  ':m',
  '',
  ' ',
];

/** Qwen's auth type for each selector: a string, null for none, 'throws' when it refuses the selector. */
function qwenAuthTypes(selectors: readonly string[]): Array<string | null> {
  const { node22 } = ensureE2eToolchain();
  const chunks = path.join(qwenPackageDir, 'chunks');
  const chunk = fs
    .readdirSync(chunks)
    .map((f) => path.join(chunks, f))
    .find((f) => /^export \{[^}]*\bresolveModelId\b/m.test(fs.readFileSync(f, 'utf8')));
  expect(chunk, "Qwen's model-id chunk").toBeDefined();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h55-selector-'));
  try {
    const script = path.join(dir, 'resolve.mjs');
    fs.writeFileSync(
      script,
      `const m = await import(${JSON.stringify(chunk)});
const out = JSON.parse(process.argv[2]).map((s) => {
  try { return m.resolveModelId(s, {})?.authType ?? null; } catch { return 'throws'; }
});
console.log(JSON.stringify(out));`,
    );
    return JSON.parse(execFileSync(node22, [script, JSON.stringify(selectors)]).toString()) as Array<
      string | null
    >;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it("names the auth type Qwen 0.24.4's resolveModelId names, for every selector", () => {
  const qwen = qwenAuthTypes(SELECTORS);
  const mismatches = SELECTORS.map((s, i) => ({
    s,
    qwen: qwen[i],
    ours: selectorAuthType(s, AUTH_TYPES) ?? null,
  }))
    // Qwen refuses `<authType>:` outright (no agent loads): whatever the launcher says there is safe.
    .filter(({ qwen: q, ours }) => q !== 'throws' && q !== ours);
  expect(mismatches).toEqual([]);
  expect(qwen.filter((q) => q !== null && q !== 'throws').length).toBeGreaterThan(AUTH_TYPES.length * 4);
});
