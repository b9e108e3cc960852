// Shared helpers for the context server's integration tests: temp folders, a real server, real fetch.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import * as z from 'zod';
import {
  type ContextServer,
  type ContextServerOptions,
  startContextServer,
} from '../../../src/serve/server.js';

export const TOKEN = 'test-token-7f3a9c';
export const SEARCH = '/v1/context/search';

/** Generic HTTP Search v1 response as the server promises it: every optional field present and typed. */
export const wireResponse = z.strictObject({
  items: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        content: z.string().min(1),
        title: z.string().min(1),
        uri: z.string().min(1),
        score: z.number().refine(Number.isFinite),
        updated_at: z.iso.datetime(),
      }),
    )
    .max(5),
});

export const errorResponse = z.strictObject({
  error: z.strictObject({ code: z.string().min(1), message: z.string().min(1) }),
});

/** Creates a temp folder holding `files` (relative POSIX path → text) and returns its path. */
export async function makeFolder(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'qm-serve-'));
  await writeFiles(root, files);
  return root;
}

export async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, ...path.split('/'));
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

export async function removeFolder(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

export type Sink = Writable & {
  text(): string;
  /** Resolves with the first match of `pattern` in everything written so far or later. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
};

/** A writable that keeps everything written to it. */
export function sink(): Sink {
  const chunks: string[] = [];
  const waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  const text = () => chunks.join('');
  const settle = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(text());
      if (match === null) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(match);
    }
  };
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      settle();
      done();
    },
  });
  return Object.assign(stream, {
    text,
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        waiters.push({ pattern, resolve });
        settle();
      }),
  });
}

export function start(options: Partial<ContextServerOptions> & { dir: string }): Promise<ContextServer> {
  return startContextServer({ token: TOKEN, host: '127.0.0.1', port: 0, ...options });
}

/** POSTs a JSON body with the test token; `init` overrides anything. */
export function post(server: ContextServer, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${SEARCH}`, {
    method: 'POST',
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

/** Searches and returns the validated items. */
export async function search(server: ContextServer, query: string, limit = 5) {
  const response = await post(server, { query, limit });
  if (response.status !== 200) throw new Error(`search answered ${response.status}`);
  return wireResponse.parse(await response.json()).items;
}
