// Entry of dist/runtime/write-confirmation.js, Qwen's PreToolUse hook for context_remember. It reads
// no provider config, credential or network. A stalled or broken request is denied, never waved through.
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import { decideWriteConfirmation } from './decide.js';

export function main(): void {
  runHook({
    // A crash or an overrun decides as for invalid input: deny.
    fallback: () => JSON.stringify(decideWriteConfirmation(undefined)),
    answer: (input) => JSON.stringify(decideWriteConfirmation(input)),
  });
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
