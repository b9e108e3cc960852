// The I/O edge of the session-store check (sessionStoreRefusals in prepare-openclaw.ts): OpenClaw's
// session database read by the pinned Node 24. The launcher and `qwen-managed plan` pass this one
// reader, so both refuse a stored session with the same function and the same words.
import { OPENCLAW_SESSION_READ } from '../src/base/limits.js';
import { parseSessionStoreOutput, SESSION_STORE_READER, type SessionStoreRead } from './prepare-openclaw.js';

/**
 * OpenClaw's session database, read by the pinned Node 24 (its node:sqlite; the launcher's Node 22
 * may predate it) with no environment, within OPENCLAW_SESSION_READ. Any failure is the refusal's.
 */
export function readOpenclawSessions(
  node: string,
  database: string,
  keys: readonly string[],
): SessionStoreRead {
  try {
    const out = process
      .getBuiltinModule('node:child_process')
      .execFileSync(node, ['-e', SESSION_STORE_READER, database, ...keys], {
        encoding: 'utf8',
        timeout: OPENCLAW_SESSION_READ.timeoutMs,
        maxBuffer: OPENCLAW_SESSION_READ.maxBytes,
        env: {},
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    return parseSessionStoreOutput(out);
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    // The reader's own last line says why (node:sqlite's error); Node's experimental warning comes first.
    const last =
      typeof stderr === 'string'
        ? stderr
            .trim()
            .split('\n')
            .filter((l) => /Error/.test(l))
            .at(-1)
        : undefined;
    return { error: last ?? (error instanceof Error ? error.message.split('\n')[0]! : String(error)) };
  }
}
