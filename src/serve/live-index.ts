// Keeps the chunk index in step with the folder: a cheap stat scan re-reads only files that changed.
import { chunkDocument } from './chunker.js';
import { readCorpusFile, scanCorpus } from './corpus.js';
import { ChunkIndex, type SearchHit } from './index.js';

export interface LiveIndexOptions {
  dir: string;
  /** A search rescans first when the last scan is at least this old; 0 rescans before every search. */
  rescanIntervalMs: number;
}

export interface LiveIndex {
  /** Rescans now; resolves once every change made before the call is indexed. */
  refresh(): Promise<void>;
  /** Searches, rescanning first if the last scan is stale. */
  search(query: string, limit: number): Promise<SearchHit[]>;
}

export function createLiveIndex(options: LiveIndexOptions): LiveIndex {
  const index = new ChunkIndex();
  // path → version last indexed (also for unreadable files, so they are not re-read on every scan).
  const versions = new Map<string, string>();
  let lastScan = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;

  async function scan(): Promise<void> {
    const startedAt = Date.now();
    const files = await scanCorpus(options.dir);
    const present = new Set<string>();
    for (const file of files) {
      present.add(file.path);
      if (versions.get(file.path) === file.version) continue;
      const text = await readCorpusFile(file);
      if (text === undefined) index.removeFile(file.path);
      else index.setFile({ path: file.path, mtimeMs: file.mtimeMs, chunks: chunkDocument(file.path, text) });
      versions.set(file.path, file.version);
    }
    for (const path of versions.keys()) {
      if (present.has(path)) continue;
      index.removeFile(path);
      versions.delete(path);
    }
    lastScan = startedAt;
  }

  function refresh(): Promise<void> {
    // Scans never overlap: a new one starts after the one in flight, so it sees every earlier change.
    const run = (running ?? Promise.resolve()).catch(() => undefined).then(scan);
    running = run;
    const clear = () => {
      if (running === run) running = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  async function search(query: string, limit: number): Promise<SearchHit[]> {
    // Concurrent searches share the scan in flight instead of queueing one each.
    if (running !== undefined) await running.catch(() => undefined);
    if (Date.now() - lastScan >= options.rescanIntervalMs) await refresh();
    return index.search(query, limit);
  }

  return { refresh, search };
}
