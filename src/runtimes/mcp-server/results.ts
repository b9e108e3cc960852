// Fixed tool-result texts. A result never contains the content, a credential, a provider URL or a
// raw provider answer: only these texts and our own rendering of normalised items.
import { escapeHiddenInJson } from '../../context/display.js';
import { escapeMarkupInJson } from '../../context/renderer.js';
import type { RememberResult } from '../../providers/types.js';

export const SEARCH_FAILED = 'External context search failed.';
export const QUERY_EMPTY = 'The query is empty.';
export const CONTENT_INVALID =
  'The memory content is invalid: it must be at most 4000 characters, well-formed, and not blank.';
/** The refusal of content the confirmation could not show as stored (the reason never holds the content). */
export const contentRefused = (reason: string): string =>
  `The memory content was refused: ${reason}. Do not retry with the same content.`;
export const REMEMBER_FAILED = {
  status: 'failed',
  message: 'The provider rejected the memory. Do not retry without changing the content or configuration.',
} as const;
export const REMEMBER_UNKNOWN = {
  status: 'unknown',
  message: 'The provider may have accepted the memory. Do not retry automatically.',
} as const;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

export const textResult = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
export const errorResult = (text: string): ToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** `stored` and `accepted` are successes; `accepted` (queued) is never reported as `stored`. */
export function rememberResultToTool(result: RememberResult): ToolResult {
  switch (result.status) {
    case 'stored':
    case 'accepted':
      // The provider's id is printed to the terminal: its C1 or bidi controls go as `\uXXXX` escapes.
      // And it reaches the model outside any envelope: its `<` and `>` too, as the renderer's are.
      return textResult(escapeHiddenInJson(escapeMarkupInJson(JSON.stringify(result))));
    case 'failed':
      return errorResult(JSON.stringify(REMEMBER_FAILED));
    default:
      return errorResult(JSON.stringify(REMEMBER_UNKNOWN));
  }
}
