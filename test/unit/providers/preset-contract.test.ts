// The Mem0 contract's request builders, preset by preset, compared as exact JSON text (key order is
// part of the wire contract).
import { describe, expect, it } from 'vitest';
import { MEM0_PRESETS, type Mem0PresetName, type PresetSpec } from '../../../src/contracts/mem0-presets.js';
import {
  buildSearchBody,
  buildWriteBody,
  credentialPlacement,
  mem0Contract,
  parseMem0SearchResponse,
} from '../../../src/providers/mem0/preset-contract.js';
import { credentialHeader } from '../../../src/providers/request.js';

const U = 'repository-memory';
const G = 'qwen-code';
const A = 'app-1';

describe('search body', () => {
  it.each<[Mem0PresetName, Record<string, string>, string]>([
    [
      'mem0-platform-v3',
      { appId: A },
      `{"query":"q","top_k":5,"threshold":0.1,"rerank":false,"filters":{"app_id":"${A}"}}`,
    ],
    [
      'mem0-v3',
      { appId: A },
      `{"query":"q","top_k":5,"threshold":0.1,"rerank":false,"filters":{"app_id":"${A}"}}`,
    ],
    [
      'mem0-oss-rest-2026-08',
      { userId: U, agentId: G },
      `{"query":"q","top_k":5,"filters":{"user_id":"${U}","agent_id":"${G}"}}`,
    ],
    ['mem0-oss-rest-2026-08', { userId: U }, `{"query":"q","top_k":5,"filters":{"user_id":"${U}"}}`],
    [
      'mem0-oss-2026-08',
      { userId: U, agentId: G },
      `{"query":"q","top_k":5,"filters":{"user_id":"${U}","agent_id":"${G}"}}`,
    ],
    [
      'aliyun-polardb-mysql-2026-08',
      { userId: U, agentId: G },
      `{"query":"q","top_k":5,"filters":{"user_id":"${U}"},"agent_id":"${G}"}`,
    ],
    ['aliyun-polardb-mysql-2026-08', { userId: U }, `{"query":"q","top_k":5,"filters":{"user_id":"${U}"}}`],
    [
      'mem0-v2',
      { userId: U, agentId: G },
      `{"query":"q","limit":5,"filters":{"user_id":"${U}"},"agent_id":"${G}"}`,
    ],
  ])('%s with scope %j', (preset, scope, expected) => {
    expect(JSON.stringify(buildSearchBody(MEM0_PRESETS[preset], scope, 'q', 5))).toBe(expected);
  });

  it.each([
    [3, 3],
    [5, 5],
    [10, 5],
  ])('limit field = min(limit, 5): %i → %i', (limit, sent) => {
    expect(buildSearchBody(MEM0_PRESETS['mem0-v2'], { userId: U }, 'q', limit)['limit']).toBe(sent);
    expect(buildSearchBody(MEM0_PRESETS['mem0-oss-rest-2026-08'], { userId: U }, 'q', limit)['top_k']).toBe(
      sent,
    );
  });

  it('does not share the preset table objects with the body', () => {
    const body = buildSearchBody(MEM0_PRESETS['mem0-platform-v3'], { appId: A }, 'q', 5);
    body['threshold'] = 9;
    expect(MEM0_PRESETS['mem0-platform-v3'].fixedSearchOptions).toEqual({ threshold: 0.1, rerank: false });
  });
});

describe('write body', () => {
  const C = 'exact  content\n with "quotes" and ü';
  const messages = JSON.stringify([{ role: 'user', content: C }]);
  it.each<[Mem0PresetName, Record<string, string>, string]>([
    ['mem0-platform-v3', { appId: A }, `{"messages":${messages},"infer":false,"app_id":"${A}"}`],
    ['mem0-v3', { appId: A }, `{"messages":${messages},"infer":false,"app_id":"${A}"}`],
    [
      'mem0-oss-rest-2026-08',
      { userId: U, agentId: G },
      `{"messages":${messages},"infer":false,"user_id":"${U}","agent_id":"${G}"}`,
    ],
    ['mem0-oss-2026-08', { userId: U }, `{"messages":${messages},"infer":false,"user_id":"${U}"}`],
    [
      'aliyun-polardb-mysql-2026-08',
      { userId: U, agentId: G },
      `{"messages":${messages},"infer":false,"user_id":"${U}","agent_id":"${G}"}`,
    ],
    [
      'mem0-v2',
      { userId: U, agentId: G },
      `{"messages":${messages},"infer":false,"user_id":"${U}","agent_id":"${G}"}`,
    ],
  ])('%s with scope %j', (preset, scope, expected) => {
    expect(JSON.stringify(buildWriteBody(MEM0_PRESETS[preset], scope, C))).toBe(expected);
  });
});

describe('credential header', () => {
  it.each([
    ['token', { name: 'authorization', value: 'Token k' }],
    ['x-api-key', { name: 'x-api-key', value: 'k' }],
    ['bearer', { name: 'authorization', value: 'Bearer k' }],
  ] as const)('%s', (auth, expected) => {
    expect(credentialHeader(credentialPlacement(auth), 'k')).toEqual(expected);
  });
});

describe('search response', () => {
  const raw = (memory: unknown, extra: Record<string, unknown> = {}) => ({ id: 'm', memory, ...extra });
  const directImport = JSON.stringify([{ role: 'user', content: 'inner' }]);

  it.each<[Mem0PresetName, unknown, string | undefined]>([
    ['mem0-oss-rest-2026-08', raw('text'), 'text'],
    ['mem0-oss-rest-2026-08', { id: 'm', content: 'fallback' }, 'fallback'],
    ['mem0-oss-rest-2026-08', { id: 'm', memory: '', content: 'fallback' }, 'fallback'],
    ['mem0-oss-rest-2026-08', { id: 'm', memory: 3, content: 'fallback' }, 'fallback'],
    ['mem0-platform-v3', { id: 'm', content: 'not a platform field' }, undefined],
    ['aliyun-polardb-mysql-2026-08', { id: 'm', content: 'not a polardb field' }, undefined],
    ['aliyun-polardb-mysql-2026-08', raw(directImport, { infer: false }), directImport],
    ['mem0-v2', raw(directImport, { infer: false }), 'inner'],
    ['mem0-v2', raw(directImport), directImport],
  ])('%s reads %j as %j', (preset, item, content) => {
    const items = parseMem0SearchResponse(MEM0_PRESETS[preset], { results: [item] }, 5);
    expect(items.map((i) => i.content)).toEqual(content === undefined ? [] : [content]);
  });

  it.each<[string, unknown]>([
    ['array root', [{ id: 'm', memory: 'x' }]],
    ['missing results', { memories: [] }],
    ['results not an array', { results: 'x' }],
    ['null', null],
  ])('%s fails the search', (_label, answer) => {
    expect(() => parseMem0SearchResponse(MEM0_PRESETS['mem0-v2'], answer, 5)).toThrow(
      'The provider response is invalid.',
    );
  });
});

describe('the write operation follows the table', () => {
  const base = { name: 'p', origin: 'https://m.example', basePath: '', scope: { userId: U } };

  it('a preset without `write` has no remember operation', () => {
    const { write: _write, ...searchOnly } = MEM0_PRESETS['mem0-oss-rest-2026-08'];
    const preset: PresetSpec = searchOnly;
    expect(mem0Contract({ ...base, preset }).remember).toBeUndefined();
  });

  it('a preset with `write` has one, at its write path', () => {
    const contract = mem0Contract({ ...base, preset: MEM0_PRESETS['mem0-oss-rest-2026-08'] });
    expect(contract.remember?.request('exact text')).toEqual({
      operation: 'remember',
      method: 'POST',
      origin: 'https://m.example',
      path: '/memories',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      credential: { header: 'x-api-key', prefix: '' },
      body: { messages: [{ role: 'user', content: 'exact text' }], infer: false, user_id: U },
    });
  });
});
