// The managed settings against the Qwen version pinned on this machine: Qwen silently ignores a key
// its own version does not know, so a setting only a later version has must be refused where the
// older package is pinned — by render on that machine, and by verify (settings.qwen).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { pinnedQwenSettingsProblems } from '../../../src/deploy/deployment/settings.js';
import { DEFAULT_QWEN_VERSION } from '../../../src/qwen/versions.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { allProfilesRaw, renderToDir, tempDir, verifyInstall } from './fixtures.js';

/** Added after 0.24.0 (0.24.2 and 0.24.4 have it); 0.24.0 does not know it (policies/qwen/<version>/settings.json). */
const LATER_ONLY = { tools: { workflowNameOnly: true } };

describe('pinnedQwenSettingsProblems', () => {
  it.each<[string, string | undefined, Record<string, unknown>, string[]]>([
    ['a setting 0.24.0 lacks, 0.24.0 pinned', '0.24.0', LATER_ONLY, ['settings.tools.workflowNameOnly']],
    ['the same setting, 0.24.4 pinned (the default: parsing judged it already)', '0.24.4', LATER_ONLY, []],
    ['a setting 0.24.0 has, 0.24.0 pinned', '0.24.0', { general: { vimMode: true } }, []],
    ['no package here', undefined, LATER_ONLY, []],
    ['an unsupported version (the host checks refuse it)', '0.23.9', LATER_ONLY, []],
  ])('%s', (_name, version, settings, keys) => {
    expect(pinnedQwenSettingsProblems(settings, version).map((p) => p.key)).toEqual(keys);
  });

  it('names the version and the fix', () => {
    expect(pinnedQwenSettingsProblems(LATER_ONLY, '0.24.0')).toEqual([
      {
        key: 'settings.tools.workflowNameOnly',
        value: 'true',
        message: 'is not a Qwen Code 0.24.0 setting',
        fix: 'remove "workflowNameOnly" (Qwen Code 0.24.0 has no such setting under "tools"; see schema/deployment.schema.json)',
      },
    ]);
  });
});

/** verify's settings.qwen rows for an install whose qwenCli sits in a package of `version`. */
async function settingsRows(version: string, settings: Record<string, unknown>) {
  const root = await tempDir('qm-qwen-settings-');
  await fs.chmod(root, 0o755);
  const pkg = await writeQwenPackage(root, version);
  const raw = await allProfilesRaw();
  Object.assign(raw, { qwenCli: path.join(pkg, 'cli.js'), settings });
  const dir = await renderToDir(parseDeploymentValue(raw));
  const report = await verifyInstall(dir, { smoke: false });
  return report.checks.filter((c) => c.id === 'settings.qwen').map((c) => [c.profile, c.ok, c.message]);
}

describe('verify judges every profile by the Qwen pinned here (settings.qwen)', () => {
  it('refuses, per profile, a setting the pinned 0.24.0 would ignore', async () => {
    const rows = await settingsRows('0.24.0', LATER_ONLY);
    const message = expect.stringMatching(
      /^settings\.tools\.workflowNameOnly = true: is not a Qwen Code 0\.24\.0 setting\. Fix: remove "workflowNameOnly" .*\(the pinned Qwen here is 0\.24\.0, which ignores settings it does not know; change deployment\.json or pin a Qwen that has it\)$/,
    );
    expect(rows).toEqual([
      ['auto-recall', false, message],
      ['on-demand', false, message],
      ['write', false, message],
    ]);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['the same settings with the default version pinned', DEFAULT_QWEN_VERSION, LATER_ONLY],
    ['negative control: 0.24.0 pinned, settings it knows', '0.24.0', { general: { vimMode: true } }],
  ])('passes %s', async (_name, version, settings) => {
    const ok = `every setting is one the Qwen ${version} pinned here knows`;
    expect(await settingsRows(version, settings)).toEqual([
      ['auto-recall', true, ok],
      ['on-demand', true, ok],
      ['write', true, ok],
    ]);
  });
});
