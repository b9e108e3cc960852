// The refusal a launcher step throws, as the lines it would print, for the pure launcher tests.
import { LaunchError } from '../../../launcher/messages.js';

/** The problems of the LaunchError `fn` throws; `[]` when it throws nothing. Any other error propagates. */
export function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof LaunchError) return [...error.problems];
    throw error;
  }
  return [];
}
