// The layout tables a reader trusts (README's "Layout" and docs/layout.md's "Layers, leaves first")
// name every folder of src/ once, and only folders that exist: a folder added or removed without its
// row fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../scripts/import-graph.js';

/** The `src/<name>/` folders named in the first column of the Markdown table under `heading`. */
function tableFolders(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const lines = markdown.slice(start + heading.length + 2).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows = lines.slice(first);
  const end = rows.findIndex((line) => !line.startsWith('|'));
  // A table that ends the file has no line after it.
  const table = end < 0 ? rows : rows.slice(0, end);
  return table.flatMap((row) =>
    [...(row.split('|')[1] ?? '').matchAll(/`src\/([a-z-]+)\/`/g)].map((m) => m[1]!),
  );
}

/** What is wrong with a table against the folders on disk: missing rows, rows of no folder, repeats. */
function tableProblems(named: readonly string[], folders: readonly string[]): string[] {
  const problems = folders.filter((f) => !named.includes(f)).map((f) => `src/${f}/ has no row`);
  problems.push(...named.filter((f) => !folders.includes(f)).map((f) => `src/${f}/ is not a folder`));
  problems.push(...named.filter((f, i) => named.indexOf(f) !== i).map((f) => `src/${f}/ has two rows`));
  return problems;
}

const read = (file: string) => readFileSync(join(REPOSITORY_ROOT, file), 'utf8');
const SRC_FOLDERS = readdirSync(join(REPOSITORY_ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('the layout tables name every folder of src/', () => {
  it.each([
    ['README.md', '## Layout'],
    ['docs/layout.md', '## Layers, leaves first'],
  ])('%s (%s)', (file, heading) => {
    expect(tableProblems(tableFolders(read(file), heading), SRC_FOLDERS)).toEqual([]);
  });

  it('reads a table that ends the file to its last row', () => {
    const markdown = [
      '',
      '## Layout',
      '',
      '| Folder | Holds |',
      '|---|---|',
      '| `src/base/` | a |',
      '| `src/text/` | b |',
    ];
    expect(tableFolders(markdown.join('\n'), '## Layout')).toEqual(['base', 'text']);
  });

  it('negative control: a table without a folder, with a gone one and a repeat is named row by row', () => {
    const markdown = [
      '## Layout',
      '',
      '| Folder | Holds |',
      '|---|---|',
      '| `src/base/` | the leaf |',
      '| `src/gone/` | nothing |',
      '| `src/http/`, `src/base/` | two at once |',
      '',
      'after the table: `src/text/`',
    ].join('\n');
    expect(tableProblems(tableFolders(`\n${markdown}`, '## Layout'), ['base', 'http', 'text'])).toEqual([
      'src/text/ has no row',
      'src/gone/ is not a folder',
      'src/base/ has two rows',
    ]);
  });
});
