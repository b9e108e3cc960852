// Where "Extensions changed on disk. Run /reload-plugins to apply updates." comes from in a managed
// start (issue 28), measured on the real Qwen 0.24.4 in the pty harness against the fake model:
// each case starts Qwen with `--extensions none` on a QWEN_HOME prepared as stated, waits for the
// input box and then 5 s more (the extension watcher's debounce and its first poll), and records
// whether the notice is on screen and what QWEN_HOME holds before and after.
//
//   npx tsx test/e2e/measure/extensions.ts
//
// Only loopback traffic (the fake model); writes .cache/e2e/measurements/extensions.json.
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { DEFAULT_QWEN_VERSION, qwenVersionFacts } from '../../../src/qwen/versions.js';
import { e2eCacheDir, ensureE2eToolchain } from '../harness/paths.js';
import { measuredBaseline } from '../harness/qwen-home.js';
import { QwenScenario } from '../harness/scenario.js';

const NOTICE = 'Extensions changed on disk';

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      out.push(`${relative(dir, p)}${entry.isDirectory() ? '/' : ''}`);
      if (entry.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Case {
  name: string;
  /** Shapes QWEN_HOME after the harness made it (settings.json only). */
  prepare(qwenHome: string): void;
}

let previous: string | undefined;
const snapshots = join(e2eCacheDir, 'measurements', 'extensions-home');

const CASES: Case[] = [
  { name: 'fresh QWEN_HOME (settings.json only): the first managed start', prepare: () => {} },
  {
    name: 'the QWEN_HOME a previous start left: every later managed start',
    prepare: (home) => {
      if (previous !== undefined) cpSync(previous, home, { recursive: true });
    },
  },
  {
    name: 'fresh QWEN_HOME with an empty extensions/ made before the start',
    prepare: (home) => mkdirSync(join(home, 'extensions'), { mode: 0o700 }),
  },
  {
    name: 'fresh QWEN_HOME seeded as the launcher seeds it (policies/qwen/versions.json qwenHomeSeed)',
    prepare: (home) => {
      for (const [rel, content] of Object.entries(qwenVersionFacts(DEFAULT_QWEN_VERSION)!.qwenHomeSeed)) {
        mkdirSync(dirname(join(home, rel)), { recursive: true, mode: 0o700 });
        writeFileSync(join(home, rel), content, { mode: 0o600 });
      }
    },
  },
  {
    name: 'fresh QWEN_HOME with extensions/extension-enablement.json {} made before the start',
    prepare: (home) => {
      mkdirSync(join(home, 'extensions'), { mode: 0o700 });
      writeFileSync(join(home, 'extensions', 'extension-enablement.json'), '{}', { mode: 0o600 });
    },
  },
];

async function main(): Promise<void> {
  ensureE2eToolchain();
  const results: Record<string, unknown>[] = [];
  for (const c of CASES) {
    let before: string[] = [];
    const s = await QwenScenario.start({
      systemSettings: measuredBaseline(),
      prepare: ({ qwenHome }) => {
        c.prepare(qwenHome);
        before = tree(qwenHome);
      },
    });
    try {
      await s.waitForReady(60_000);
      await sleep(5_000);
      const screen = s.term.fullText();
      const after = tree(s.qwenHome);
      const state = (() => {
        try {
          return JSON.parse(readFileSync(join(s.qwenHome, 'extension-store', 'state.json'), 'utf8'));
        } catch {
          return undefined;
        }
      })();
      const result = { case: c.name, notice: screen.includes(NOTICE), before, after, storeState: state };
      console.log(JSON.stringify(result, null, 1));
      results.push(result);
      await s.quit();
      // Keep this home for the "later start" case.
      if (previous === undefined) {
        mkdirSync(snapshots, { recursive: true });
        cpSync(s.qwenHome, snapshots, { recursive: true });
        previous = snapshots;
      }
    } finally {
      await s.dispose();
    }
  }
  mkdirSync(join(e2eCacheDir, 'measurements'), { recursive: true });
  writeFileSync(
    join(e2eCacheDir, 'measurements', 'extensions.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  void statSync;
}

await main();
