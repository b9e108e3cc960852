// Entry of dist/runtime/auto-recall.js, Qwen's UserPromptSubmit command hook. Fail-open on every
// failure: stdout `{}`, exit 0, empty stderr — within a 6500 ms budget that starts with the process.
import { HOOK_BUDGET_MS } from '../../deploy/names.js';
import { isEntryPoint, remainingBudget, silenceWarnings, writeStdoutSync } from '../shared/process.js';
import { HOOK_STDIN_LIMIT, parseJson, readStdin } from '../shared/stdin.js';
import { readAutoRecallEvent } from './event.js';

const EMPTY = '{}';

export async function main(): Promise<void> {
  silenceWarnings();
  let finished = false;
  const finish = (output: string) => {
    if (finished) return;
    finished = true;
    writeStdoutSync(output);
    // Explicit exit: no timer, socket or proxy connection may outlive the answer.
    process.exit(0);
  };
  process.on('uncaughtException', () => finish(EMPTY));
  process.on('unhandledRejection', () => finish(EMPTY));

  const budget = new AbortController();
  // The budget also covers reading stdin: a writer that never closes it cannot hold the hook.
  // Deliberately ref'd: it guarantees an answer even if every other handle is gone.
  setTimeout(() => {
    budget.abort();
    finish(EMPTY);
  }, remainingBudget(HOOK_BUDGET_MS));
  // An event loop that empties without an answer still answers `{}`.
  process.on('beforeExit', () => finish(EMPTY));

  const input = await readStdin(HOOK_STDIN_LIMIT, budget.signal);
  if (input.kind !== 'ok') return finish(EMPTY);
  const event = readAutoRecallEvent(parseJson(input.bytes));
  if (event === undefined) return finish(EMPTY);
  try {
    const { searchAndRender } = await import('./search.js');
    finish(await searchAndRender(event, { env: process.env, signal: budget.signal }));
  } catch {
    finish(EMPTY);
  }
}

declare const __filename: string;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) void main();
