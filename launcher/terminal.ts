// Step 3: stdin and stdout must both be terminals. Qwen 0.24.4 turns piped stdin into a headless
// prompt, and with stdout piped it still draws its TUI into the pipe, so the launcher checks both.
import { failure } from './messages.js';

export interface TerminalState {
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
}

export function terminalProblems(state: TerminalState): string[] {
  const problems: string[] = [];
  if (!state.stdinIsTTY) {
    problems.push(
      'standard input is not a terminal: Qwen would read it as a headless prompt; run launch-qwen in a terminal',
    );
  }
  if (!state.stdoutIsTTY) {
    problems.push(
      'standard output is not a terminal: the managed session is interactive only; do not pipe or redirect it',
    );
  }
  return problems;
}

export function checkTerminal(state: TerminalState): void {
  const problems = terminalProblems(state);
  if (problems.length > 0) throw failure(...problems);
}
