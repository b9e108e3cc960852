// The full-text index over chunks: MiniSearch (BM25+) keyed by stable `path#anchor` ids. Pure: no I/O.
import MiniSearch from 'minisearch';
import { codePointLength, takeCodePoints } from '../text/codepoints.js';
import type { Chunk } from './chunker.js';
import { processTerm, queryTerms, tokenize } from './terms.js';

export interface IndexedFile {
  /** Relative POSIX path inside the served folder. */
  path: string;
  mtimeMs: number;
  chunks: readonly Chunk[];
}

export interface SearchHit {
  id: string;
  content: string;
  title: string;
  uri: string;
  score: number;
  /** ISO 8601 modification time of the file the chunk came from. */
  updatedAt: string;
}

/** Returned content is cut to this many code points: enough to answer, small enough to inject. */
export const MAX_HIT_CHARS = 4000;

interface StoredChunk {
  path: string;
  anchor: string;
  title: string;
  content: string;
  mtimeMs: number;
}

interface IndexDocument {
  id: string;
  heading: string;
  context: string;
  content: string;
}

/** `path#anchor`, or the bare path for a chunk without a heading. */
export function chunkId(path: string, anchor: string): string {
  return anchor === '' ? path : `${path}#${anchor}`;
}

/** Percent-encodes only what would change how the path part of a URI reference parses. */
export function chunkUri(path: string, anchor: string): string {
  const escaped = path.replace(/[%#?\s\u0000-\u001f\u007f]/gu, (c) => encodeURIComponent(c));
  return anchor === '' ? escaped : `${escaped}#${anchor}`;
}

function truncate(text: string, max: number): string {
  return codePointLength(text) <= max ? text : `${takeCodePoints(text, max - 1)}…`;
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export class ChunkIndex {
  readonly #search = new MiniSearch<IndexDocument>({
    fields: ['heading', 'context', 'content'],
    tokenize,
    processTerm,
    searchOptions: {
      // A match in the section's own heading says more than one in its parents or the file name.
      boost: { heading: 3, context: 1.5, content: 1 },
      combineWith: 'OR',
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 5 ? 0.15 : false),
      maxFuzzy: 2,
    },
  });
  readonly #chunks = new Map<string, StoredChunk>();
  readonly #idsByPath = new Map<string, string[]>();

  get fileCount(): number {
    return this.#idsByPath.size;
  }

  get chunkCount(): number {
    return this.#chunks.size;
  }

  /** Adds a file, replacing every chunk it had before. */
  setFile(file: IndexedFile): void {
    this.removeFile(file.path);
    const ids: string[] = [];
    for (const chunk of file.chunks) {
      const id = chunkId(file.path, chunk.anchor);
      // Anchors are unique per file by construction; a repeat would only come from a broken chunker.
      if (this.#chunks.has(id)) continue;
      const parents = chunk.headings.slice(0, -1);
      this.#chunks.set(id, {
        path: file.path,
        anchor: chunk.anchor,
        title: chunk.headings.length > 0 ? chunk.headings.join(' › ') : fileName(file.path),
        content: chunk.text,
        mtimeMs: file.mtimeMs,
      });
      this.#search.add({
        id,
        heading: chunk.headings.at(-1) ?? '',
        context: [...parents, file.path].join('\n'),
        content: chunk.text,
      });
      ids.push(id);
    }
    this.#idsByPath.set(file.path, ids);
  }

  removeFile(path: string): void {
    for (const id of this.#idsByPath.get(path) ?? []) {
      this.#search.discard(id);
      this.#chunks.delete(id);
    }
    this.#idsByPath.delete(path);
  }

  /** Best first, at most `limit` hits; a query with no usable terms finds nothing. */
  search(query: string, limit: number): SearchHit[] {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    // Terms are already processed: split them back apart without tokenizing or processing twice.
    const results = this.#search.search(terms.join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
    });
    const hits: SearchHit[] = [];
    for (const result of results) {
      const chunk = this.#chunks.get(result.id as string);
      if (chunk === undefined || !Number.isFinite(result.score)) continue;
      hits.push({
        id: chunkId(chunk.path, chunk.anchor),
        content: truncate(chunk.content, MAX_HIT_CHARS),
        title: chunk.title,
        uri: chunkUri(chunk.path, chunk.anchor),
        score: Math.round(result.score * 1000) / 1000,
        updatedAt: new Date(chunk.mtimeMs).toISOString(),
      });
      if (hits.length >= limit) break;
    }
    return hits;
  }
}
