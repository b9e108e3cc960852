// Hook commands render writes into system settings. Built only from pinned paths that passed
// pinnedPathProblem, quoted for the shell Qwen runs them with. (The bin/ shims come from
// render/shims.ts, which owns their format.)

import type { Platform } from '../../base/platform.js';
import { posixQuote, powershellQuote } from '../../policy/quote.js';

/** The `shell` of a command hook entry: Qwen's default (`bash`) on POSIX, PowerShell on Windows. */
export const HOOK_SHELL: Readonly<Record<Platform, string | undefined>> = {
  posix: undefined,
  windows: 'powershell',
};

/**
 * A hook command. POSIX: Qwen runs `bash -c <command>`; `exec` makes Node replace the shell so the
 * process Qwen times out is the hook itself. Windows: `shell: "powershell"` with the call operator
 * `&` on the single-quoted pinned node.
 */
export function hookCommand(platform: Platform, node: string, script: string): string {
  return platform === 'windows'
    ? `& ${powershellQuote(node)} ${powershellQuote(script)}`
    : `exec ${posixQuote(node)} ${posixQuote(script)}`;
}
