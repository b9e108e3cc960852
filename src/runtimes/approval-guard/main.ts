// Entry of dist/runtime/approval-guard.js. Runs on every tool call: reads no config and no network,
// and never blocks Qwen by crashing — any failure answers `{}` (Qwen fails open on errors anyway).
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import { decideApprovalGuard, parseGuardedModes } from './decide.js';

export const GUARD_MODES_ENV = 'QWEN_MANAGED_GUARD_MODES';

export function main(): void {
  const modes = parseGuardedModes(
    Object.hasOwn(process.env, GUARD_MODES_ENV) ? process.env[GUARD_MODES_ENV] : undefined,
  );
  runHook({
    fallback: () => '{}',
    answer: (input) => JSON.stringify(decideApprovalGuard(input, modes)),
  });
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
