// The one process skeleton of every command hook: read stdin (≤ 1 MiB) within a wall-clock budget
// that starts with the process, answer exactly one JSON object on stdout, exit. Nothing — timer,
// socket, proxy — outlives the answer, and stderr stays empty.
import { HOOK_BUDGET_MS, HOOK_STDIN_BYTES } from '../../base/limits.js';
import { parseJson, readStdin } from '../../startup/stdin.js';
import { silenceWarnings, writeStdoutSync } from './process.js';

export interface HookSpec {
  /** The answer for a budget overrun or a crash. */
  fallback(): string;
  /** The answer for the parsed stdin (undefined when malformed, not UTF-8 JSON, or over 1 MiB). */
  answer(input: unknown): string | Promise<string>;
}

export function runHook(spec: HookSpec): void {
  silenceWarnings();
  let finished = false;
  const stdin = readStdin(HOOK_STDIN_BYTES);
  const finish = (output: string) => {
    if (finished) return;
    finished = true;
    writeStdoutSync(output);
    // A threadpool read blocked on a stdin that never closes would make process.exit() wait for its
    // thread forever; the answer is already written, so end at once instead. Qwen closes a hook's
    // stdin right after writing the event, so only a foreign caller ever gets here.
    if (stdin.pending()) process.kill(process.pid, 'SIGKILL');
    process.exit(0);
  };
  const fail = () => finish(spec.fallback());
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  // Ref'd on purpose: it guarantees an answer even when every other handle is gone. Whatever is still
  // in flight when it fires (a provider request) ends with the process.
  setTimeout(fail, Math.max(0, HOOK_BUDGET_MS - process.uptime() * 1000));
  void stdin.result.then(async (read) => {
    try {
      finish(await spec.answer(read.kind === 'ok' ? parseJson(read.bytes) : undefined));
    } catch {
      fail();
    }
  });
}
