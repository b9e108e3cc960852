// Entry of dist/runtime/approval-guard.js. Runs on every tool call: reads no config and no network.
// A failure asks, never `{}`: no opinion runs the call unasked in YOLO. An event it could not read
// whole (too large, or too slow to arrive) asks too: its size is the provider's choice.
import { accessSync, constants, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { readOwnEnv } from '../../base/environment.js';
import { GUARD_REPOSITORY_CODE } from '../../base/limits.js';
import { GUARD_MODES_ENV } from '../../contracts/names.js';
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import {
  decideApprovalGuard,
  failedAnswer,
  type GuardHost,
  parseGuardedModes,
  unreadAnswer,
} from './decide.js';
import { basename, dirname, join } from './host.js';
import { type RepositoryFiles, repositoryCodeRisk } from './repository-code.js';
import {
  mayRunRepositoryCode,
  REPOSITORY_CODE_REASON,
  type RepositoryCodeRisk,
} from './repository-code-gate.js';

/** `path` with its nearest existing ancestor's links resolved, like Qwen's own read check. */
export function realpathNearestExisting(path: string): string {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      if (dirname(at) === at) return path;
      rest.push(basename(at));
    }
  }
}

/** Whether something (a link too) is at `path`; true when it cannot be told (an unreadable parent). */
export function pathMayExist(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** The names in `dir`, following a link to it; undefined when it is no directory or cannot be read. */
export function listNames(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** The repository's files as the guard reads them to name its code: links followed, as git and npm do. */
export const REPOSITORY_FILES: RepositoryFiles = {
  readText(path) {
    try {
      const stat = statSync(path);
      if (!stat.isFile() || stat.size > GUARD_REPOSITORY_CODE.fileBytes) return undefined;
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  executable(path) {
    try {
      if (!statSync(path).isFile()) return false;
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  isFile(path) {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  }, // One directory read: a link's target is looked up, other entries carry their type.
  list(path) {
    try {
      return readdirSync(path, { withFileTypes: true })
        .filter((e) => e.isFile() || (e.isSymbolicLink() && REPOSITORY_FILES.isFile(join(path, e.name))))
        .map((e) => e.name);
    } catch {
      return undefined;
    }
  },
};

export const UNFINISHED_CODE_RULE =
  "the approval guard's repository-code rule failed or did not finish in time on this line: check the command yourself";

/** Runs `run`, stopped with a throw after `ms`; a loop blocks every timer, so V8 itself must stop it. */
export type RunWithin = <T>(run: () => T, ms: number) => T;

// node:vm's timeout is V8's watchdog: it interrupts a running loop (a timer never fires in one).
// Measured 1.3 ms at best on Node 22 (the watchdog is a thread), so only the rule's own lines pay it.
export const runWithin: RunWithin = <T>(run: () => T, ms: number): T => {
  const slot = globalThis as { __qwenManagedRule?: () => T };
  slot.__qwenManagedRule = run;
  try {
    // The built-in itself, not a bundled import: that would load node:vm on every tool call.
    return process.getBuiltinModule('node:vm').runInThisContext('__qwenManagedRule()', { timeout: ms }) as T;
  } finally {
    delete slot.__qwenManagedRule;
  }
};

/**
 * The rule for a line the gate passes; a rule that throws or runs past GUARD_REPOSITORY_CODE.ruleMs
 * asks rather than let the hook hang until Qwen's timeout, which runs the call unasked (a wrapper
 * with no command once looped forever).
 */
export function guardedRepositoryCode(
  rule: typeof repositoryCodeRisk,
  within: RunWithin = runWithin,
): RepositoryCodeRisk {
  return (joined, directory, root) => {
    if (!mayRunRepositoryCode(joined)) return undefined;
    try {
      return within(() => rule(joined, directory, root, REPOSITORY_FILES), GUARD_REPOSITORY_CODE.ruleMs);
    } catch {
      return REPOSITORY_CODE_REASON + UNFINISHED_CODE_RULE;
    }
  };
}

export function main(): void {
  const modes = parseGuardedModes(readOwnEnv(process.env, GUARD_MODES_ENV));
  const host: GuardHost = {
    realpath: realpathNearestExisting,
    runtimeDir: readOwnEnv(process.env, 'QWEN_RUNTIME_DIR'),
    qwenDirs: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'].flatMap((name) => readOwnEnv(process.env, name) ?? []),
    exists: pathMayExist,
    readdir: listNames,
    home: readOwnEnv(process.env, 'HOME'),
    // In the main bundle: a bundle of its own saved 0.7 ms per tool call, under the 1 ms bar (performance.md).
    repositoryCode: guardedRepositoryCode(repositoryCodeRisk),
    // Loaded only here, for a read outside the root: node:crypto costs ~6 ms to load (performance.md).
    sha256: (text) =>
      (require('node:crypto') as typeof import('node:crypto'))
        .createHash('sha256')
        .update(text)
        .digest('hex'),
  };
  runHook({
    fallback: () => JSON.stringify(failedAnswer()),
    answer: (input) => JSON.stringify(decideApprovalGuard(input, modes, host)),
    unread: () => JSON.stringify(unreadAnswer()),
  });
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
