// The one process skeleton of every command hook: read stdin (≤ 1 MiB) within a wall-clock budget
// that starts with the process, answer exactly one JSON object on stdout, exit. Nothing — timer,
// socket, proxy — outlives the answer, and stderr stays empty.
import { HOOK_BUDGET_MS, HOOK_STDIN_BYTES } from '../../base/limits.js';
import { parseJson, readStdin } from '../../startup/stdin.js';
import { lookupPending, silenceWarnings, writeStdoutSync } from './process.js';

export interface HookSpec {
  /** The answer for a budget overrun or a crash. */
  fallback(): string;
  /** The answer for the parsed stdin (undefined when malformed, not UTF-8 JSON, or over 1 MiB). */
  answer(input: unknown): string | Promise<string>;
  /**
   * The answer for an event that could not be read whole — over 1 MiB, or still arriving when the
   * budget runs out — when it differs from `answer(undefined)` and the fallback.
   */
  unread?(): string;
}

export function runHook(spec: HookSpec): void {
  silenceWarnings();
  let finished = false;
  const stdin = readStdin(HOOK_STDIN_BYTES);
  const finish = (output: string) => {
    if (finished) return;
    finished = true;
    writeStdoutSync(output);
    // process.exit() waits for every libuv threadpool thread, and two kinds of work can pin one: a
    // read of a stdin that never closes (only a foreign caller: Qwen closes it after the event) and
    // a host-name lookup the resolver never answers — a provider whose DNS is a black hole kept the
    // hook alive 10 s, past Qwen's 8 s timeout, after its `{}` at the provider timeout (measured).
    // The answer is already written, so end at once instead.
    if (stdin.pending() || lookupPending()) process.kill(process.pid, 'SIGKILL');
    process.exit(0);
  };
  const fail = () => finish(spec.fallback());
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  // Ref'd on purpose: it guarantees an answer even when every other handle is gone. Whatever is still
  // in flight when it fires (a provider request) ends with the process.
  // An event still arriving at the budget is one the hook could not read, like an oversize one: a
  // padded tool call reached the guard slower than its budget on a loaded machine (measured), and
  // its size is the sender's choice, so it must not decide the answer.
  const overrun = () => (stdin.pending() && spec.unread !== undefined ? finish(spec.unread()) : fail());
  setTimeout(overrun, Math.max(0, HOOK_BUDGET_MS - process.uptime() * 1000));
  void stdin.result.then(async (read) => {
    try {
      if (read.kind === 'oversize' && spec.unread !== undefined) finish(spec.unread());
      else finish(await spec.answer(read.kind === 'ok' ? parseJson(read.bytes) : undefined));
    } catch {
      fail();
    }
  });
}
