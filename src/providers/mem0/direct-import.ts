// mem0-v2 Direct Import decoding: a memory stored with `infer: false` may hold the raw messages
// array as JSON text; a single user message is unwrapped so the model sees the text it remembers.

/** Returns the decoded content for an item marked `infer === false`, else `content` unchanged. */
export function decodeDirectImport(item: Readonly<Record<string, unknown>>, content: string): string {
  if (item['infer'] !== false) return content;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (!Array.isArray(parsed) || parsed.length !== 1) return content;
  const message: unknown = parsed[0];
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return content;
  const { role, content: inner } = message as Record<string, unknown>;
  return role === 'user' && typeof inner === 'string' && inner !== '' ? inner : content;
}
