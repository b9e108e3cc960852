// docs/admin.md's Mem0 preset table is generated from src/contracts/mem0-presets.ts by `npm run
// schemas` (scripts/docs/mem0-presets.ts): the committed table is a fresh generation, and the
// generation reads the preset table as an administrator needs it (paths, limit field, credential
// header, scope keys, aliases).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mem0PresetTable, withMem0Presets } from '../../../scripts/docs/mem0-presets.js';
import { MEM0_PRESET_NAMES } from '../../../src/contracts/mem0-presets.js';
import { REPO } from './fixtures.js';

const adminDoc = () => fs.readFile(path.join(REPO, 'docs', 'admin.md'), 'utf8');

describe('docs/admin.md lists every Mem0 preset as presets.ts defines it', () => {
  it('the committed table is the generated one (`npm run schemas` after changing a preset)', async () => {
    const text = await adminDoc();
    expect(withMem0Presets(text)).toBe(text);
  });

  it('one row per preset identifier, in table order', () => {
    const names = mem0PresetTable()
      .split('\n')
      .slice(2)
      .map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1]);
    expect(names).toEqual(MEM0_PRESET_NAMES);
  });

  it.each([
    [
      'mem0-platform-v3',
      '| `mem0-platform-v3` | `mem0-v3` | `POST /v3/memories/search/` | `top_k` | `POST /v3/memories/add/` | `Authorization: Token <key>` | `appId` | — | as stored |',
    ],
    [
      'mem0-oss-2026-08',
      '| `mem0-oss-2026-08` | `mem0-oss-rest-2026-08` | `POST /search` | `top_k` | `POST /memories` | `X-API-Key: <key>` | `userId` | `agentId` | as stored |',
    ],
    [
      'mem0-v2',
      '| `mem0-v2` | — | `POST /v2/memories/search` | `limit` | `POST /v1/memories` | `Authorization: Token <key>` | `userId` | `agentId` | unwrapped |',
    ],
  ])('%s: its aliases, paths, limit field, header, scope keys and Direct Import reading', (_name, row) => {
    expect(mem0PresetTable().split('\n')).toContain(row);
  });

  it('refuses a document without the markers instead of losing the table', () => {
    expect(() => withMem0Presets('# admin\n')).toThrow(
      'docs/admin.md: the <!-- mem0-presets:start --> … <!-- mem0-presets:end --> markers are missing',
    );
  });
});
