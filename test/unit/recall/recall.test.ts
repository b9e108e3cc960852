// recallContext: the auto-recall search core any host calls. Pinned here: what it sends (one search
// with the sanitized query), what it returns (that query and the renderer's exact envelope), and that
// every failure — config, directory, query, provider, a transport that never answers — is `undefined`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from '../../../src/config/load.js';
import { renderContext } from '../../../src/context/renderer.js';
import type { Transport, TransportRequest } from '../../../src/http/transport.js';
import { recallContext } from '../../../src/recall/recall.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = 'tok-4f9d2c7a1b8e6f3d9a0b';
const ITEMS = [
  { id: 'a', content: 'Deployments start from a merged pull request.', title: 'Deploying' },
  { id: 'b', content: 'Rollbacks are one command.' },
];

let dir: string;
let root: string;
let configFile: string;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-recall-')));
  root = path.join(dir, 'repo');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  configFile = writeJsonFile(
    path.join(dir, 'external-context.json'),
    genericAutoRecallConfig(root, 'https://context.example.com', 300),
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = () => ({ QWEN_EXTERNAL_CONTEXT_CONFIG: configFile, CONTEXT_API_TOKEN: TOKEN });

/** Answers every request with `answer` (undefined: never answers and ignores the signal). */
function transport(answer: string | undefined): { transport: Transport; sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  return {
    sent,
    transport: {
      post(request) {
        sent.push(request);
        if (answer === undefined) return new Promise(() => {});
        return Promise.resolve({
          status: 200,
          headers: {},
          body: (async function* () {
            yield new TextEncoder().encode(answer);
          })(),
          cancel: () => {},
        });
      },
    },
  };
}

describe('recallContext', () => {
  it('searches once with the sanitized message and returns that query and the exact envelope', async () => {
    const wire = transport(JSON.stringify({ items: ITEMS }));
    const recalled = await recallContext({
      message: `How should deployment work?\nAuthorization: Bearer ${TOKEN}`,
      cwd: path.join(root, 'src'),
      env: env(),
      transport: wire.transport,
    });
    expect(recalled).toEqual({ query: 'How should deployment work?', envelope: renderContext(ITEMS) });
    expect(wire.sent.map((r) => [r.url, JSON.parse(r.body)])).toEqual([
      ['https://context.example.com/v1/context/search', { query: 'How should deployment work?', limit: 5 }],
    ]);
  });

  it('takes an already loaded config instead of the environment', async () => {
    const wire = transport(JSON.stringify({ items: ITEMS }));
    const loaded = loadRuntimeConfig(env(), 2);
    const recalled = await recallContext({
      message: 'deploy',
      cwd: root,
      env: {},
      loaded,
      transport: wire.transport,
    });
    expect(recalled).toEqual({ query: 'deploy', envelope: renderContext(ITEMS) });
  });

  it.each<[string, () => Parameters<typeof recallContext>[0]]>([
    ['no config variable', () => ({ message: 'deploy', cwd: root, env: { CONTEXT_API_TOKEN: TOKEN } })],
    [
      'no credential',
      () => ({ message: 'deploy', cwd: root, env: { QWEN_EXTERNAL_CONTEXT_CONFIG: configFile } }),
    ],
    ['a directory outside the repository root', () => ({ message: 'deploy', cwd: dir, env: env() })],
    ['an empty message', () => ({ message: '', cwd: root, env: env() })],
    ['a message that is only the credential', () => ({ message: TOKEN, cwd: root, env: env() })],
  ])('%s: nothing, and no request', async (_label, input) => {
    const wire = transport(JSON.stringify({ items: ITEMS }));
    await expect(recallContext({ ...input(), transport: wire.transport })).resolves.toBeUndefined();
    expect(wire.sent).toEqual([]);
  });

  it.each<[string, string]>([
    ['no items', '{"items":[]}'],
    ['a malformed answer', '{"results":[]}'],
    ['not JSON', '<html>'],
  ])('%s: nothing, after one request', async (_label, answer) => {
    const wire = transport(answer);
    await expect(
      recallContext({ message: 'deploy', cwd: root, env: env(), transport: wire.transport }),
    ).resolves.toBeUndefined();
    expect(wire.sent).toHaveLength(1);
  });

  it('a transport that never answers (and ignores the abort) still ends, with nothing, at the deadline', async () => {
    const wire = transport(undefined);
    await expect(
      recallContext({ message: 'deploy', cwd: root, env: env(), transport: wire.transport }),
    ).resolves.toBeUndefined();
    expect(wire.sent).toHaveLength(1);
  });
});
