// docs/admin.md's generated blocks: each lives between an HTML-comment marker pair that
// `npm run schemas` rewrites (scripts/docs/mem0-presets.ts, scripts/docs/provider-fields.ts).

export const ADMIN_DOC = 'docs/admin.md';

/** `text` with what stands between `<!-- name:start -->` and `<!-- name:end -->` replaced by `body`. */
export function withGeneratedBlock(text: string, name: string, body: string): string {
  const START = `<!-- ${name}:start -->`;
  const END = `<!-- ${name}:end -->`;
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${ADMIN_DOC}: the ${START} … ${END} markers are missing`);
  return `${text.slice(0, start + START.length)}\n${body}${text.slice(end)}`;
}
