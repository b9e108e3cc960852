// Reads the hook's stdout back into the context Qwen would inject: the rendered envelope of untrusted
// items inside `hookSpecificOutput.additionalContext`.
import { DemoError } from './cli.js';

export interface ContextItem {
  title: string;
  uri: string;
  score: number;
  content: string;
}

export interface InjectedContext {
  notice: string;
  items: ContextItem[];
  /** The string Qwen places after the user's text. */
  additionalContext: string;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DemoError(`the hook's ${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function decodeHookOutput(stdout: string): InjectedContext {
  const output = record(JSON.parse(stdout), 'output');
  const specific = record(output['hookSpecificOutput'], 'hookSpecificOutput');
  const additionalContext = text(specific['additionalContext']);
  const envelope = record(
    record(JSON.parse(additionalContext), 'additionalContext')['untrusted_external_context'],
    'untrusted_external_context',
  );
  const items = (Array.isArray(envelope['items']) ? envelope['items'] : []).map((raw): ContextItem => {
    const item = record(raw, 'context item');
    return {
      title: text(item['title']),
      uri: text(item['uri']),
      score: typeof item['score'] === 'number' ? item['score'] : Number.NaN,
      content: text(item['content']),
    };
  });
  return { notice: text(envelope['notice']), items, additionalContext };
}
