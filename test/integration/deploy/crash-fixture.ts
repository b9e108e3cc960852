// Two renders for the crash test: A (installed first) and B (a different deployment: every profile
// file changes, the write profile is removed; with `large` runtimes, so writes take time).
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { type PreviousInstall, renderInstall } from '../../../src/deploy/render/render.js';
import { allProfilesRaw, fakeRuntimes, NOW, TOOLKIT } from '../../unit/deploy/fixtures.js';

const BIG = 24 * 1024 * 1024;

/**
 * `large` pads every runtime to 24 MiB, so a kill at a random moment lands mid-write; `small` keeps
 * them as they are, for kills at an exact writer event, where the sizes change nothing but the time.
 */
export type RuntimeSize = 'large' | 'small';

export async function renderA() {
  return renderInstall(parseDeploymentValue(await allProfilesRaw()), fakeRuntimes(), {
    toolkitVersion: TOOLKIT,
    adminUid: 0,
    now: NOW,
  });
}

export async function renderB(size: RuntimeSize, previous?: PreviousInstall) {
  const raw = await allProfilesRaw();
  (raw.settings as any).model.name = 'model-b';
  (raw.environment as any).PATH = '/usr/bin:/bin';
  delete (raw.profiles as any).write;
  delete (raw.credentials as any).MEM0_API_KEY;
  (raw.credentials as any).OPENAI_API_KEY.profiles = ['on-demand', 'auto-recall'];
  const runtimes = fakeRuntimes();
  for (const [name, bytes] of size === 'large' ? runtimes : []) {
    // Same program, padded with a large trailing comment: complete or not is visible in the bytes.
    const pad = new TextEncoder().encode(`\n/*${'x'.repeat(BIG)}*/\n`);
    const big = new Uint8Array(bytes.length + pad.length);
    big.set(bytes);
    big.set(pad, bytes.length);
    runtimes.set(name, big);
  }
  return renderInstall(parseDeploymentValue(raw), runtimes, {
    toolkitVersion: TOOLKIT,
    adminUid: 0,
    now: NOW,
    ...(previous === undefined ? {} : { previous }),
  });
}
