// Step 3: stdin and stdout must both be terminals. Qwen 0.24.4 turns piped stdin into a headless
// prompt, and with stdout piped it still draws its TUI into the pipe, so the launcher checks both.
// The managed OpenClaw session reads its turn from the terminal: a pipe would feed it unattended.
import { type Agent, failure } from './messages.js';

export interface TerminalState {
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
}

export function terminalProblems(state: TerminalState, agent: Agent = 'Qwen'): string[] {
  const problems: string[] = [];
  if (!state.stdinIsTTY) {
    problems.push(
      agent === 'Qwen'
        ? 'standard input is not a terminal: Qwen would read it as a headless prompt; run launch-qwen in a terminal'
        : 'standard input is not a terminal: OpenClaw would take whatever it holds as your message, unattended; run launch-qwen in a terminal',
    );
  }
  if (!state.stdoutIsTTY) {
    problems.push(
      'standard output is not a terminal: the managed session is interactive only; do not pipe or redirect it',
    );
  }
  return problems;
}

export function checkTerminal(state: TerminalState, agent: Agent = 'Qwen'): void {
  const problems = terminalProblems(state, agent);
  if (problems.length > 0) throw failure(...problems);
}
