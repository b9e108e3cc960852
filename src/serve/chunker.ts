// Splits a document into searchable chunks: Markdown at ATX headings, plain text by paragraphs. Pure.
import { createSlugger, headingText } from './slug.js';

export interface Chunk {
  /** GitHub-style anchor of the chunk's heading; `''` for text before any heading or a plain-text file. */
  anchor: string;
  /** Heading path from the outermost enclosing heading down to this chunk's own; `[]` without one. */
  headings: string[];
  /** The chunk's own text (its heading line included), trimmed. */
  text: string;
}

/** Plain-text files at most this long stay one chunk; longer ones are packed paragraph by paragraph. */
export const TEXT_CHUNK_CHARS = 2000;

const ATX_HEADING = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const ATX_CLOSING = /(?:^|[ \t]+)#+[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

function normalise(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function parseHeading(line: string): { level: number; text: string } | undefined {
  const match = ATX_HEADING.exec(line);
  if (match === null) return undefined;
  return { level: match[1]!.length, text: headingText(match[2]!.replace(ATX_CLOSING, '')) };
}

function parseFenceOpen(line: string): { char: string; length: number } | undefined {
  const match = FENCE_OPEN.exec(line);
  if (match === null) return undefined;
  const fence = match[1]!;
  // CommonMark: a backtick fence's info string cannot contain a backtick (that line is inline code).
  if (fence[0] === '`' && match[2]!.includes('`')) return undefined;
  return { char: fence[0]!, length: fence.length };
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return match !== null && match[1]![0] === fence.char && match[1]!.length >= fence.length;
}

/** Chunks a Markdown document: one chunk per ATX heading, plus any text before the first heading. */
export function chunkMarkdown(source: string): Chunk[] {
  const chunks: Chunk[] = [];
  const slug = createSlugger();
  const stack: { level: number; text: string }[] = [];
  let current = { anchor: '', headings: [] as string[], lines: [] as string[], bodyStart: 0 };
  let fence: { char: string; length: number } | undefined;

  const flush = () => {
    // A heading with nothing under it answers no question; its title still reaches its subsections.
    if (current.lines.slice(current.bodyStart).some((line) => line.trim() !== '')) {
      chunks.push({
        anchor: current.anchor,
        headings: current.headings,
        text: current.lines.join('\n').trim(),
      });
    }
  };

  for (const line of normalise(source).split('\n')) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      current.lines.push(line);
      continue;
    }
    const heading = parseHeading(line);
    if (heading === undefined) {
      fence = parseFenceOpen(line);
      current.lines.push(line);
      continue;
    }
    flush();
    while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop();
    stack.push(heading);
    current = {
      anchor: slug(heading.text),
      headings: stack.map((h) => h.text),
      lines: [line],
      bodyStart: 1,
    };
  }
  flush();
  return chunks;
}

/** Chunks a plain-text file: whole if short, else consecutive paragraphs packed up to the size cap. */
export function chunkPlainText(source: string, maxChars: number = TEXT_CHUNK_CHARS): Chunk[] {
  const text = normalise(source).trim();
  if (text === '') return [];
  if (text.length <= maxChars) return [{ anchor: '', headings: [], text }];
  const parts: string[] = [];
  let part = '';
  for (const paragraph of text.split(/\n[ \t]*\n\s*/)) {
    if (part !== '' && part.length + 2 + paragraph.length > maxChars) {
      parts.push(part);
      part = paragraph;
    } else {
      part = part === '' ? paragraph : `${part}\n\n${paragraph}`;
    }
  }
  if (part !== '') parts.push(part);
  return parts.map((t, i) => ({ anchor: `part-${i + 1}`, headings: [], text: t }));
}

/** Picks the chunker by file extension (`.md`/`.markdown` → Markdown, anything else → plain text). */
export function chunkDocument(path: string, source: string): Chunk[] {
  return /\.(md|markdown)$/i.test(path) ? chunkMarkdown(source) : chunkPlainText(source);
}
