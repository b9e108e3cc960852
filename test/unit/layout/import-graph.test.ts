// `npm run check:imports` (scripts/import-graph.ts): on this repository it passes and prints the folder
// edges; on small trees written for each rule it fails with the rule's message (the negative controls).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  folderEdges,
  folderOf,
  importReport,
  REPOSITORY_ROOT,
  scanImportGraph,
  subFolderEdges,
  testImports,
} from '../../../scripts/import-graph.js';
import { runTsChild } from '../../fixtures/run-child.js';

const SCRIPT = 'scripts/import-graph.ts';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway repository holding exactly `files` (path → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-graph-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

describe('this repository', () => {
  it('passes: exit 0, the edge counts, the layers and the ok line', async () => {
    const result = await runTsChild(SCRIPT, [], 60_000);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^folder → folder import counts \(\d+ files, \d+ folder edges\):\n/);
    expect(result.stdout).toMatch(/^ {2}src\/deploy → src\/contracts +\d+$/m);
    expect(result.stdout).toContain('layers, leaves first');
    expect(result.stdout).toMatch(/^ {2}src\/deploy\/render → src\/deploy\/deployment +\d+$/m);
    expect(result.stdout).toMatch(/^ {2}src\/deploy: 1\. /m);
    expect(result.stdout).toContain('imports of test/ from outside it: 0\n');
    expect(result.stdout).toContain(
      'ok: no folder imports a folder that imports it back, nor a sub-folder a sibling; nothing outside test/ imports it; src/runtimes reaches nothing in src/deploy, src/cli, launcher\n',
    );
  });

  it('keeps the runtimes, the contracts and the leaves off the admin toolkit', () => {
    const edges = folderEdges(scanImportGraph(REPOSITORY_ROOT));
    const targets = (folder: string) => [...(edges.get(folder)?.keys() ?? [])].sort();
    for (const folder of ['src/runtimes', 'src/contracts', 'src/base', 'src/text', 'launcher']) {
      expect(targets(folder), folder).not.toEqual(expect.arrayContaining(['src/deploy']));
      expect(targets(folder), folder).not.toEqual(expect.arrayContaining(['src/cli']));
    }
    // Render and verify take the launcher's contract from src/contracts and src/policy, never from launcher/.
    expect(targets('src/deploy')).not.toEqual(expect.arrayContaining(['launcher']));
    // The leaves every layer may use: src/base imports nothing, src/text only src/base.
    expect(targets('src/base')).toEqual([]);
    expect(targets('src/text')).toEqual(['src/base']);
    expect(targets('src/contracts')).toEqual(['src/base', 'src/text']);
  });

  it('layers src/deploy inside: the manifest below render, render below rollback and verify', () => {
    const edges = subFolderEdges(scanImportGraph(REPOSITORY_ROOT), 'src/deploy');
    const targets = (sub: string) => [...(edges.get(`src/deploy/${sub}`)?.keys() ?? [])].sort();
    expect(targets('deployment')).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^src\/deploy\/(render|rollback|verify)$/)]),
    );
    expect(targets('render')).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^src\/deploy\/(rollback|verify)$/)]),
    );
    expect(targets('render')).toContain('src/deploy/deployment');
    expect(targets('rollback')).toContain('src/deploy/render');
  });

  it('keeps scripts/ (and everything else scanned) off test/', () => {
    expect(testImports(scanImportGraph(REPOSITORY_ROOT))).toEqual([]);
  });
});

describe('negative controls: trees that break a rule', () => {
  it.each<{ rule: string; files: Record<string, string>; message: string }>([
    {
      rule: 'a pair of folders importing each other',
      files: {
        'src/a/x.ts': "import { y } from '../b/y.js';\nexport const x = y;\n",
        'src/b/y.ts': "import type { X } from '../a/types.js';\nexport const y = 1 as X;\n",
        'src/a/types.ts': 'export type X = number;\n',
      },
      message: 'error: folders import each other: src/a ⇄ src/b (1 and 1 imports)',
    },
    {
      rule: 'a loop through three folders',
      files: {
        'src/a/x.ts': "export * from '../b/y.js';\n",
        'src/b/y.ts': "export { z as y } from '../c/z.js';\n",
        'src/c/z.ts': "const a = await import('../a/x.js');\nexport const z = a;\n",
      },
      message: 'error: folders import each other through a loop: src/a → src/b → src/c → src/a',
    },
    {
      rule: 'the launcher and deploy importing each other (require counts too)',
      files: {
        'launcher/main.ts': "import { plan } from '../src/deploy/plan.js';\nexport const m = plan;\n",
        'src/deploy/plan.ts':
          "const shims = require('../../launcher/shims.js');\nexport const plan = shims;\n",
        'launcher/shims.ts': 'export const s = 1;\n',
      },
      message: 'error: folders import each other: launcher ⇄ src/deploy (1 and 1 imports)',
    },
    {
      rule: 'a runtime importing src/deploy',
      files: {
        'src/runtimes/hook/main.ts':
          "import { NAME } from '../../deploy/names.js';\nexport const n = NAME;\n",
        'src/deploy/names.ts': "export const NAME = 'x';\n",
      },
      message:
        'error: a runtime reaches src/deploy: src/runtimes/hook/main.ts → src/deploy/names.ts (runtimes may not depend on src/deploy, src/cli, launcher)',
    },
    {
      rule: 'two sub-folders of src/deploy importing each other',
      files: {
        'src/deploy/render/render.ts': "import { r } from '../rollback/record.js';\nexport const x = r;\n",
        'src/deploy/rollback/record.ts':
          "import type { W } from '../render/writer.js';\nexport const r = 1 as W;\n",
        'src/deploy/render/writer.ts': 'export type W = number;\n',
      },
      message:
        'error: sub-folders of src/deploy import each other: src/deploy/render ⇄ src/deploy/rollback (1 and 1 imports)',
    },
    {
      rule: 'sub-folders joined through a file directly in their folder',
      files: {
        'src/deploy/render/render.ts': "import { t } from '../tree.js';\nexport const x = t;\n",
        'src/deploy/tree.ts': "import { r } from './rollback/install.js';\nexport const t = r;\n",
        'src/deploy/rollback/install.ts': "import { w } from '../render/writer.js';\nexport const r = w;\n",
        'src/deploy/render/writer.ts': 'export const w = 1;\n',
      },
      message:
        'error: sub-folders of src/deploy import each other: src/deploy/render ⇄ src/deploy/rollback (1 and 1 imports)',
    },
    {
      rule: 'a loop through three sub-folders, two levels down in scripts/',
      files: {
        'scripts/bench/a/x.ts': "export * from '../b/y.js';\n",
        'scripts/bench/b/y.ts': "export { z as y } from '../c/z.js';\n",
        'scripts/bench/c/z.ts': "const a = require('../a/x.js');\nexport const z = a;\n",
      },
      message:
        'error: sub-folders of scripts/bench import each other through a loop: scripts/bench/a → scripts/bench/b → scripts/bench/c → scripts/bench/a',
    },
    {
      rule: 'scripts/ importing test/',
      files: {
        'scripts/bench/fixtures.ts':
          "import { listen } from '../../test/fixtures/loopback.js';\nexport const l = listen;\n",
        'test/fixtures/loopback.ts': 'export const listen = 1;\n',
      },
      message:
        'error: scripts/bench/fixtures.ts imports test/fixtures/loopback.ts: nothing outside test/ may import test/ (move what both need out of it, docs/layout.md)',
    },
    {
      rule: 'src/ importing test/ (a type counts too)',
      files: {
        'src/providers/engine.ts':
          "import type { F } from '../../test/fixtures/fake.js';\nexport const e = 1 as F;\n",
        'test/fixtures/fake.ts': 'export type F = number;\n',
      },
      message:
        'error: src/providers/engine.ts imports test/fixtures/fake.ts: nothing outside test/ may import test/ (move what both need out of it, docs/layout.md)',
    },
    {
      rule: 'a runtime reaching launcher/ through another folder',
      files: {
        'src/runtimes/hook/main.ts': "import { c } from '../../context/c.js';\nexport const h = c;\n",
        'src/context/c.ts': "import { show } from '../../launcher/messages.js';\nexport const c = show;\n",
        'launcher/messages.ts': 'export const show = 1;\n',
      },
      message:
        'error: a runtime reaches launcher: src/runtimes/hook/main.ts → src/context/c.ts → launcher/messages.ts (runtimes may not depend on src/deploy, src/cli, launcher)',
    },
  ])('$rule: exit 1 and names it', async ({ files, message }) => {
    const root = tree(files);
    const result = await runTsChild(SCRIPT, ['--root', root], 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toContain(message);
  });

  it('the same trees without the offending import pass (the control of the controls)', () => {
    const root = tree({
      'src/a/x.ts': "import { y } from '../b/y.js';\nexport const x = y;\n",
      'src/b/y.ts': 'export const y = 1;\n',
      'src/runtimes/hook/main.ts': "import { x } from '../../a/x.js';\nexport const h = x;\n",
      'src/deploy/render/render.ts':
        "import { h } from '../../runtimes/hook/main.js';\nexport const r = h;\n",
      'src/deploy/rollback/record.ts': "import { r } from '../render/render.js';\nexport const c = r;\n",
      'src/deploy/tree.ts': "import { c } from './rollback/record.js';\nexport const t = c;\n",
      'launcher/main.ts': "import { r } from '../src/deploy/render/render.js';\nexport const m = r;\n",
      'scripts/shared/loopback.ts': 'export const listen = 1;\n',
      'scripts/bench/run.ts': "import { listen } from '../shared/loopback.js';\nexport const b = listen;\n",
      'test/fixtures/server.ts':
        "import { listen } from '../../scripts/shared/loopback.js';\nexport const s = listen;\n",
    });
    const report = importReport(scanImportGraph(root));
    expect(report.problems).toEqual([]);
    expect(report.text.split('\n')).toEqual([
      'folder → folder import counts (9 files, 4 folder edges):',
      '  launcher → src/deploy                      1',
      '  src/a → src/b                              1',
      '  src/deploy → src/runtimes                  1',
      '  src/runtimes → src/a                       1',
      'layers, leaves first (a folder imports only folders of earlier layers):',
      '  1. src/b',
      '  2. src/a',
      '  3. src/runtimes',
      '  4. src/deploy',
      '  5. launcher',
      'sub-folder → sub-folder import counts inside a folder (through its own files too; 2 edges):',
      '  scripts/bench → scripts/shared             1',
      '  src/deploy/rollback → src/deploy/render    1',
      'sub-folder layers, leaves first:',
      '  scripts: 1. shared  2. bench',
      '  src/deploy: 1. render  2. rollback',
      'imports of test/ from outside it: 0',
    ]);
  });

  it('rejects an unknown argument with exit 2', async () => {
    const result = await runTsChild(SCRIPT, ['--fast'], 60_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('import-graph: unknown argument "--fast"; usage: import-graph [--root DIR]\n');
  });
});

describe('folderOf: the granularity', () => {
  it.each([
    ['src/deploy/render/render.ts', 'src/deploy'],
    ['src/base/limits.ts', 'src/base'],
    ['launcher/main.ts', 'launcher'],
    ['scripts/bench/run.ts', 'scripts'],
    ['policies/environment.json', 'policies'],
    ['package.json', 'package.json'],
  ])('%s belongs to %s', (file, folder) => {
    expect(folderOf(file)).toBe(folder);
  });
});
