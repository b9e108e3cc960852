// docs/admin.md's Mem0 preset table is the administrator's view of src/contracts/mem0-presets.ts:
// this test keeps every row (paths, credential header, scope keys, aliases) equal to the table data.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEM0_PRESETS, type PresetSpec } from '../../../src/contracts/mem0-presets.js';
import { REPO } from './fixtures.js';

const HEADER: Record<PresetSpec['auth'], string> = {
  token: '`Authorization: Token <key>`',
  bearer: '`Authorization: Bearer <key>`',
  'x-api-key': '`X-API-Key: <key>`',
};

const keys = (list: readonly string[]) => (list.length === 0 ? '—' : list.map((k) => `\`${k}\``).join(', '));

async function docRows(): Promise<string[][]> {
  const text = await fs.readFile(path.join(REPO, 'docs', 'admin.md'), 'utf8');
  const table = /<!-- mem0-presets:start -->\n([\s\S]*?)<!-- mem0-presets:end -->/.exec(text)?.[1] ?? '';
  return table
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '')));
}

describe('docs/admin.md lists every Mem0 preset as presets.ts defines it', () => {
  it('one row per preset, in table order, with its paths, header and scope keys', async () => {
    const rows = await docRows();
    expect(rows.map((row) => [row[0], ...row.slice(2)])).toEqual(
      Object.entries(MEM0_PRESETS).map(([name, spec]) => [
        `\`${name}\``,
        `\`POST ${spec.searchPath}\``,
        spec.write === undefined ? '—' : `\`POST ${spec.write.path}\``,
        HEADER[spec.auth],
        keys(spec.required),
        keys(spec.optional),
      ]),
    );
  });

  it('"same as" names exactly the other ids of the same preset object', async () => {
    for (const row of await docRows()) {
      const name = row[0]!.replaceAll('`', '') as keyof typeof MEM0_PRESETS;
      const aliases = Object.entries(MEM0_PRESETS)
        .filter(([other, spec]) => other !== name && spec === MEM0_PRESETS[name])
        .map(([other]) => other);
      const named = [...row[1]!.matchAll(/`([a-z0-9-]+)`/g)]
        .map((m) => m[1]!)
        .filter((n) => n in MEM0_PRESETS);
      expect([name, named]).toEqual([name, aliases]);
    }
  });
});
