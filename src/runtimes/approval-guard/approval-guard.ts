// Entry of dist/runtime/approval-guard.js. Runs on every tool call: reads no config and no network,
// and never blocks Qwen by crashing — any failure answers `{}` (Qwen fails open on errors anyway).
// An event too large to read asks: its size is the provider's choice, not a failure.
import { readOwnEnv } from '../../base/environment.js';
import { GUARD_MODES_ENV } from '../../contracts/names.js';
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import { decideApprovalGuard, oversizeAnswer, parseGuardedModes } from './decide.js';

export function main(): void {
  const modes = parseGuardedModes(readOwnEnv(process.env, GUARD_MODES_ENV));
  runHook({
    fallback: () => '{}',
    answer: (input) => JSON.stringify(decideApprovalGuard(input, modes)),
    oversize: () => JSON.stringify(oversizeAnswer()),
  });
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
