// Entry of dist/runtime/approval-guard.js. Runs on every tool call: reads no config and no network,
// and never blocks Qwen by crashing — any failure answers `{}` (Qwen fails open on errors anyway).
// An event it could not read whole (too large, or too slow to arrive) asks: its size is the
// provider's choice, not a failure.
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readOwnEnv } from '../../base/environment.js';
import { GUARD_MODES_ENV } from '../../contracts/names.js';
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import { decideApprovalGuard, type GuardHost, parseGuardedModes, unreadAnswer } from './decide.js';

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

export function main(): void {
  const modes = parseGuardedModes(readOwnEnv(process.env, GUARD_MODES_ENV));
  const host: GuardHost = {
    realpath: realpathNearestExisting,
    runtimeDir: readOwnEnv(process.env, 'QWEN_RUNTIME_DIR'),
    qwenDirs: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'].flatMap((name) => readOwnEnv(process.env, name) ?? []),
    // Loaded only here, for a read outside the root: node:crypto costs ~6 ms to load (performance.md).
    sha256: (text) =>
      (require('node:crypto') as typeof import('node:crypto'))
        .createHash('sha256')
        .update(text)
        .digest('hex'),
  };
  runHook({
    fallback: () => '{}',
    answer: (input) => JSON.stringify(decideApprovalGuard(input, modes, host)),
    unread: () => JSON.stringify(unreadAnswer()),
  });
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
