// Entry of dist/runtime/approval-guard.js. Runs on every tool call: reads no config and no network,
// and never blocks Qwen by crashing — any failure answers `{}` (Qwen fails open on errors anyway).
import { HOOK_BUDGET_MS } from '../../deploy/names.js';
import { isEntryPoint, remainingBudget, silenceWarnings, writeStdoutSync } from '../shared/process.js';
import { HOOK_STDIN_LIMIT, parseJson, readStdin } from '../shared/stdin.js';
import { decideApprovalGuard, parseGuardedModes } from './decide.js';

export const GUARD_MODES_ENV = 'QWEN_MANAGED_GUARD_MODES';

export async function main(): Promise<void> {
  silenceWarnings();
  let finished = false;
  const finish = (output: string) => {
    if (finished) return;
    finished = true;
    writeStdoutSync(output);
    process.exit(0);
  };
  process.on('uncaughtException', () => finish('{}'));
  const budget = new AbortController();
  setTimeout(() => {
    budget.abort();
    finish('{}');
  }, remainingBudget(HOOK_BUDGET_MS));
  const modes = parseGuardedModes(
    Object.hasOwn(process.env, GUARD_MODES_ENV) ? process.env[GUARD_MODES_ENV] : undefined,
  );
  const input = await readStdin(HOOK_STDIN_LIMIT, budget.signal);
  finish(
    JSON.stringify(decideApprovalGuard(input.kind === 'ok' ? parseJson(input.bytes) : undefined, modes)),
  );
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) void main();
