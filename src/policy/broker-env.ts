// Proxy variables never capture the loopback traffic to the credential broker: whatever the
// administrator sets or the developer brings, a brokered session's NO_PROXY and no_proxy both list the
// broker's address (undici reads no_proxy first, then NO_PROXY; Qwen's model client, the hooks and
// the MCP server all follow undici's rules). Both are then non-empty, so no `.env` file can fill them
// either. Pure; the launcher builds the environment with it and verify judges each plan with it.

export const NO_PROXY_VARIABLES = ['NO_PROXY', 'no_proxy'] as const;

/** True when a NO_PROXY list sends `host` direct: the host itself, or `*`. */
export function noProxyCovers(list: string | undefined, host: string): boolean {
  if (list === undefined) return false;
  return list
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .some((entry) => entry === '*' || entry === host);
}

/** `list` with `host` appended when it does not already send it direct. */
export function withNoProxyHost(list: string | undefined, host: string): string {
  if (noProxyCovers(list, host)) return list!;
  return list === undefined || list.trim() === '' ? host : `${list},${host}`;
}
