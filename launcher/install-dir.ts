// Step 2a: the install directory comes from the launcher's own real path — never from an
// environment variable or the current directory, which the caller controls.
import { RUNTIME_FILES } from '../src/contracts/runtime-files.js';
import { show } from '../src/policy/quote.js';
import { failure } from './messages.js';

export interface RealpathFs {
  realpathSync(path: string): string;
}

export interface PathOps {
  basename(p: string): string;
  dirname(p: string): string;
}

/** `<installDir>/runtime/launch-qwen.js` → `<installDir>`, after resolving every symlink. */
export function installDirFromLauncher(launcherFile: string, fs: RealpathFs, path: PathOps): string {
  const real = fs.realpathSync(launcherFile);
  const runtimeDir = path.dirname(real);
  if (path.basename(real) !== RUNTIME_FILES.launcher || path.basename(runtimeDir) !== 'runtime') {
    throw failure(
      `the launcher must run as <installDir>/runtime/${RUNTIME_FILES.launcher}, but it is ${show(real)}; ` +
        'install it with qwen-managed render',
    );
  }
  return path.dirname(runtimeDir);
}

/** The plan must belong to this very install: a moved or copied install would run unverified pins. */
export function checkPlanInstallDir(planInstallDir: string, actualInstallDir: string, fs: RealpathFs): void {
  let planned: string;
  try {
    planned = fs.realpathSync(planInstallDir);
  } catch {
    planned = planInstallDir;
  }
  if (planned !== actualInstallDir) {
    throw failure(
      `the launch plan belongs to the install directory ${show(planInstallDir)}, but this launcher runs from ` +
        `${show(actualInstallDir)}; a moved or copied install is refused — render the deployment into ` +
        `${show(actualInstallDir)} instead`,
    );
  }
}
