// The hook timeout is a per-version fact of the pinned Qwen (policies/qwen/versions.json
// `hookTimeoutUnit`): render writes it in the unit of the version it read on the target machine and
// verify expects that unit. Every supported version reads seconds today, so a version reading
// milliseconds is added here (the module's facts table mocked) to show the unit follows the pin.
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { HOOK_TIMEOUT_MS, SECURITY_HOOK_TIMEOUT_MS } from '../../../src/base/limits.js';
import { HOOK_APPROVAL_GUARD, HOOK_AUTO_RECALL } from '../../../src/contracts/names.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { loadInstallTree } from '../../../src/deploy/tree.js';
import { checkSettings } from '../../../src/deploy/verify/checks/settings.js';
import { Checks } from '../../../src/deploy/verify/report.js';
import { buildView } from '../../../src/deploy/verify/view.js';
import { DEFAULT_QWEN_VERSION } from '../../../src/qwen/versions.js';
import { example, NOW, render, tempDir } from './fixtures.js';

const MS_VERSION = '9.9.9-ms';

vi.mock('../../../src/qwen/versions.js', async (original) => {
  const actual = await original<typeof import('../../../src/qwen/versions.js')>();
  return {
    ...actual,
    pinnedQwenFacts: (version: string | undefined) =>
      version === MS_VERSION
        ? { ...actual.pinnedQwenFacts(undefined), version: MS_VERSION, hookTimeoutUnit: 'milliseconds' }
        : actual.pinnedQwenFacts(version),
  };
});

/** The timeout of each managed hook in a rendered profile's system settings, by hook name. */
function hookTimeouts(settingsText: string): Record<string, unknown> {
  const settings = JSON.parse(settingsText) as {
    hooks: Record<string, { hooks: { name: string; timeout: unknown }[] }[]>;
  };
  return Object.fromEntries(
    Object.values(settings.hooks).flatMap((groups) =>
      groups.flatMap((g) => g.hooks.map((h) => [h.name, h.timeout])),
    ),
  );
}

async function renderedSettings(qwenVersion: string | undefined): Promise<string> {
  const rendered = render(await example('auto-recall'), qwenVersion === undefined ? {} : { qwenVersion });
  return new TextDecoder().decode(rendered.files.get('profiles/auto-recall/system-settings.json')!.bytes);
}

async function hookVerdicts(renderedWith: string | undefined, verifiedWith: string | undefined) {
  const dir = path.join(await tempDir(), 'install');
  const rendered = render(
    await example('auto-recall'),
    renderedWith === undefined ? {} : { qwenVersion: renderedWith },
  );
  await writeInstall(dir, rendered, { now: NOW });
  const checks = new Checks();
  checkSettings(buildView(await loadInstallTree(dir)), checks, verifiedWith);
  return checks.list.filter((c) => c.id === 'settings.hooks').map((c) => [c.ok, c.message]);
}

describe("the hook timeout in the pinned Qwen version's unit", () => {
  // The recall hook's timeout nests above its budget; the guard's is long, since a timeout there runs the call unasked.
  it.each<[string, string | undefined, number]>([
    ['no version read: the default version (seconds)', undefined, 1000],
    [`the default version ${DEFAULT_QWEN_VERSION} (seconds)`, DEFAULT_QWEN_VERSION, 1000],
    ['a version that reads milliseconds', MS_VERSION, 1],
  ])('render: %s', async (_label, version, perUnit) => {
    expect(hookTimeouts(await renderedSettings(version))).toEqual({
      [HOOK_AUTO_RECALL]: HOOK_TIMEOUT_MS / perUnit,
      [HOOK_APPROVAL_GUARD]: SECURITY_HOOK_TIMEOUT_MS / perUnit,
    });
  });

  it('verify expects the unit of the version it finds, and names the mismatch', async () => {
    expect(await hookVerdicts(MS_VERSION, MS_VERSION)).toEqual([[true, expect.any(String)]]);
    expect(await hookVerdicts(undefined, undefined)).toEqual([[true, expect.any(String)]]);
    // The seconds render judged for the milliseconds Qwen: every managed hook's timeout is named.
    const mismatch = await hookVerdicts(undefined, MS_VERSION);
    expect(mismatch.map(([ok]) => ok)).toEqual([false, false]);
    const message = mismatch.map(([, text]) => String(text)).join('\n');
    expect(message).toContain(
      `${HOOK_AUTO_RECALL}: timeout ${HOOK_TIMEOUT_MS / 1000} must be ${HOOK_TIMEOUT_MS} (${HOOK_TIMEOUT_MS} ms in the unit Qwen ${MS_VERSION} reads;`,
    );
    expect(message).toContain(
      `${HOOK_APPROVAL_GUARD}: timeout ${SECURITY_HOOK_TIMEOUT_MS / 1000} must be ${SECURITY_HOOK_TIMEOUT_MS} (${SECURITY_HOOK_TIMEOUT_MS} ms in the unit Qwen ${MS_VERSION} reads;`,
    );
  });
});
