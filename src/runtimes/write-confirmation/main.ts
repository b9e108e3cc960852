// Entry of dist/runtime/write-confirmation.js, Qwen's PreToolUse hook for context_remember. It reads
// no provider config, credential or network. A stalled or broken request is denied, never waved through.
import { HOOK_BUDGET_MS } from '../../deploy/names.js';
import { isEntryPoint, remainingBudget, silenceWarnings, writeStdoutSync } from '../shared/process.js';
import { HOOK_STDIN_LIMIT, parseJson, readStdin } from '../shared/stdin.js';
import { decideWriteConfirmation } from './decide.js';

export async function main(): Promise<void> {
  silenceWarnings();
  let finished = false;
  const finish = (input: unknown) => {
    if (finished) return;
    finished = true;
    writeStdoutSync(JSON.stringify(decideWriteConfirmation(input)));
    process.exit(0);
  };
  // Any crash decides on "invalid input": deny.
  process.on('uncaughtException', () => finish(undefined));
  const budget = new AbortController();
  setTimeout(() => {
    budget.abort();
    finish(undefined);
  }, remainingBudget(HOOK_BUDGET_MS));
  const input = await readStdin(HOOK_STDIN_LIMIT, budget.signal);
  finish(input.kind === 'ok' ? parseJson(input.bytes) : undefined);
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) void main();
