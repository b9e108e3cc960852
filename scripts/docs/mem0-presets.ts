// docs/admin.md's Mem0 preset table, generated from MEM0_PRESETS (src/contracts/mem0-presets.ts), so
// adding a preset is one entry there (and its row in the provider contract test): `npm run schemas`
// writes the table between the markers, and test/unit/deploy/admin-doc.test.ts refuses a stale one.
import { MEM0_PRESETS, type PresetSpec } from '../../src/contracts/mem0-presets.js';
import { withGeneratedBlock } from './admin-doc.js';

const HEADER: Record<PresetSpec['auth'], string> = {
  token: '`Authorization: Token <key>`',
  bearer: '`Authorization: Bearer <key>`',
  'x-api-key': '`X-API-Key: <key>`',
};

const code = (list: readonly string[]) => (list.length === 0 ? '—' : list.map((k) => `\`${k}\``).join(', '));

/** The table: one row per preset identifier, in the table's order; aliases share one spec object. */
export function mem0PresetTable(): string {
  const presets = Object.entries(MEM0_PRESETS) as Array<[string, PresetSpec]>;
  const lines = [
    '| preset | same as | search | limit field | write | credential header | scope: required | scope: optional | Direct Import items |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, spec] of presets) {
    const aliases = presets.filter(([other, o]) => other !== name && o === spec).map(([other]) => other);
    lines.push(
      `| ${[
        `\`${name}\``,
        code(aliases),
        `\`POST ${spec.searchPath}\``,
        `\`${spec.limitField}\``,
        spec.write === undefined ? '—' : `\`POST ${spec.write.path}\``,
        HEADER[spec.auth],
        code(spec.required),
        code(spec.optional),
        spec.decodeDirectImport ? 'unwrapped' : 'as stored',
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** `text` (docs/admin.md) with the table between its markers replaced by a fresh one. */
export function withMem0Presets(text: string): string {
  return withGeneratedBlock(
    text,
    'mem0-presets',
    `${mem0PresetTable()}
`,
  );
}
