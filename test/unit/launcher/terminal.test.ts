import { describe, expect, it } from 'vitest';
import { LaunchError } from '../../../launcher/messages.js';
import { checkTerminal, terminalProblems } from '../../../launcher/terminal.js';

const STDIN =
  'standard input is not a terminal: Qwen would read it as a headless prompt; run launch-qwen in a terminal';
const STDOUT =
  'standard output is not a terminal: the managed session is interactive only; do not pipe or redirect it';

describe('terminal', () => {
  it.each([
    [true, true, []],
    [false, true, [STDIN]],
    [true, false, [STDOUT]],
    [false, false, [STDIN, STDOUT]],
  ])('stdin TTY %s, stdout TTY %s → %j', (stdinIsTTY, stdoutIsTTY, problems) => {
    expect(terminalProblems({ stdinIsTTY, stdoutIsTTY })).toEqual(problems);
    if (problems.length === 0) expect(() => checkTerminal({ stdinIsTTY, stdoutIsTTY })).not.toThrow();
    else expect(() => checkTerminal({ stdinIsTTY, stdoutIsTTY })).toThrow(LaunchError);
  });
});
