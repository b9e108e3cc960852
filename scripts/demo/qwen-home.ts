// The per-user state the launcher would create for this install: `<data>/<installId>/<kind>/home`.
// `plan` only computes the path; the demo still removes the install's state directory if anything
// created it during the run, and leaves it alone if it was there before.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface QwenHomeWatch {
  qwenHome: string;
  /** `<data>/<installId>`: the installId is a hash of the temporary install path, so it is the demo's own. */
  stateDir: string;
  existedBefore: boolean;
}

export function watchQwenHome(qwenHome: string): QwenHomeWatch {
  const stateDir = path.dirname(path.dirname(qwenHome));
  return { qwenHome, stateDir, existedBefore: fs.existsSync(stateDir) };
}

/** What happened to the state directory; removes it when the demo's run created it. */
export function cleanQwenHome(watch: QwenHomeWatch): string {
  if (watch.existedBefore) return `${watch.stateDir} existed before the demo; left as it was`;
  if (!fs.existsSync(watch.stateDir)) return 'never created (plan only computes the path)';
  fs.rmSync(watch.stateDir, { recursive: true, force: true });
  return `removed ${watch.stateDir}`;
}
