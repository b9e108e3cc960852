// `launch-qwen` as the toolkit package puts it on PATH (`npm install -g`). It is not the launcher:
// that is `<installDir>/runtime/launch-qwen.js`, which finds its install from its own real path and
// checks everything before Qwen starts. This locator only finds the install the administrator
// deployed — from a fixed, admin-owned place, never an environment variable or the current directory —
// and runs that install's `bin/launch-qwen` with the caller's arguments, which the launcher then
// judges. Pure over an injected file system; the entry (launch-qwen-locator.ts) executes the result.
import { errorCode } from '../base/errors.js';
import { StrictModes, type StrictModesFs } from '../host/strict-modes.js';
import { show } from '../policy/quote.js';
import { isPlainObject } from '../text/json.js';

/** Where the Ansible role and the Debian package keep the deployment; its `installDir` names the install. */
export const DEPLOYMENT_POINTER = '/etc/qwen-managed/deployment.json';
/** The installDir of the specification's example, tried when no deployment file is there. */
export const DEFAULT_INSTALL_DIR = '/opt/qwen-managed';

export interface LocatorFs extends StrictModesFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  existsSync(path: string): boolean;
}

export type Located =
  | { kind: 'found'; shim: string; from: string }
  | { kind: 'refused'; problems: string[] }
  | { kind: 'none'; message: string };

/** The install the deployment file names, judged like every pin (owned by root or `trustedUid`, not writable by others). */
export function locateInstall(fs: LocatorFs, trustedUid: number): Located {
  let installDir = DEFAULT_INSTALL_DIR;
  let from = `the default installDir ${DEFAULT_INSTALL_DIR}`;
  if (fs.existsSync(DEPLOYMENT_POINTER)) {
    // Whoever could write the pointer would choose what runs: it is held to StrictModes first.
    const strict = new StrictModes(trustedUid, fs);
    strict.checkChain(DEPLOYMENT_POINTER);
    if (strict.problems().length > 0) return { kind: 'refused', problems: strict.problems() };
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(DEPLOYMENT_POINTER, 'utf8'));
    } catch (error) {
      return {
        kind: 'refused',
        problems: [`cannot read ${show(DEPLOYMENT_POINTER)} (${errorCode(error)}): ask your administrator`],
      };
    }
    const named = isPlainObject(parsed) ? parsed['installDir'] : undefined;
    if (typeof named !== 'string' || !named.startsWith('/')) {
      return {
        kind: 'refused',
        problems: [`${show(DEPLOYMENT_POINTER)} names no absolute installDir: ask your administrator`],
      };
    }
    installDir = named;
    from = `installDir of ${DEPLOYMENT_POINTER}`;
  }
  const shim = `${installDir}/bin/launch-qwen`;
  if (!fs.existsSync(shim)) {
    return {
      kind: 'none',
      message: `no deployed install: ${show(shim)} (${from}) does not exist. An administrator renders one (qwen-managed render), keeps its deployment.json at ${DEPLOYMENT_POINTER} or links <installDir>/bin/launch-qwen onto PATH`,
    };
  }
  return { kind: 'found', shim, from };
}
