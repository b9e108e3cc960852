// The pinned Node 22 and Qwen 0.24.4 as a rendered deployment pins them: the copies in this test
// run's location (harness/run-location.ts, staged once per run by test/e2e/global-setup.ts), which
// the throwaway user can reach and the launcher's StrictModes check accepts wherever the clone is.
import { inject } from 'vitest';
import { DEFAULT_QWEN_VERSION } from '../../../src/qwen/versions.js';
import { type RunLocation, stageQwenVersion } from '../harness/run-location.js';

export interface PinnedToolchain {
  node: string;
  qwenCli: string;
}

/** This run's location; throws the one-line reason it could not be made (no root, no useradd, …). */
export function runLocation(): RunLocation {
  const provided = inject('e2eRunLocation');
  if (provided === undefined)
    throw new Error('no e2e run location: run the e2e project through vitest.config.ts');
  if ('unavailable' in provided) throw new Error(provided.unavailable);
  return provided;
}

export function pinnedToolchain(): PinnedToolchain {
  const location = runLocation();
  return { node: location.node22, qwenCli: location.qwenCli };
}

/** The cli.js of a supported Qwen version in this run's location (the pinned one for the default). */
export function qwenCliOf(version: string): string {
  const location = runLocation();
  return version === DEFAULT_QWEN_VERSION ? location.qwenCli : stageQwenVersion(location, version);
}
