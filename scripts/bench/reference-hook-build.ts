// Builds the reference hook (reference-hook.ts) two ways:
// - the way upstream's is: its TypeScript compiled file by file to ES modules beside a package.json
//   of `"type": "module"`, zod and undici imported from node_modules at run time (upstream runs
//   `node …/integrations/external-context/dist/auto-recall.js` from its workspace, which is what a
//   per-file TypeScript build gives);
// - bundled like ours: one CommonJS file, minified, with the options scripts/build.mjs bundles ours
//   with — the strictest comparison, where only our code's own choices differ.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { RUNTIME_BUNDLE_OPTIONS } from '../build.mjs';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
const ENTRY = path.join(ROOT, 'scripts/bench/reference-hook.ts');

export interface ReferenceHooks {
  /** `<work>/reference-upstream/scripts/bench/reference-hook.js`: per-file ES modules. */
  upstream: string;
  /** `<work>/reference-hook.js`: one minified CommonJS bundle. */
  bundled: string;
}

/** Writes both builds into `work`; `slowdown` stretches the reference's timeouts. */
export async function buildReferenceHooks(work: string, slowdown = 1): Promise<ReferenceHooks> {
  const define = { ...RUNTIME_BUNDLE_OPTIONS.define, REFERENCE_SLOWDOWN: String(slowdown) };
  const bundled = path.join(work, 'reference-hook.js');
  await build({ ...RUNTIME_BUNDLE_OPTIONS, entryPoints: [ENTRY], outfile: bundled, define });

  // Every file of ours the reference imports (dependencies stay imports, as in a TypeScript build).
  const graph = await build({
    entryPoints: [ENTRY],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    absWorkingDir: ROOT,
    logLevel: 'warning',
  });
  const inputs = Object.keys(graph.metafile.inputs);
  const out = path.join(work, 'reference-upstream');
  await build({
    entryPoints: inputs.filter((file) => file.endsWith('.ts')).map((file) => path.join(ROOT, file)),
    outbase: ROOT,
    outdir: out,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: RUNTIME_BUNDLE_OPTIONS.target,
    define,
    absWorkingDir: ROOT,
    logLevel: 'warning',
  });
  for (const file of inputs.filter((f) => f.endsWith('.json'))) {
    fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(out, file));
  }
  fs.writeFileSync(path.join(out, 'package.json'), '{"type":"module"}\n');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'));
  return { upstream: path.join(out, 'scripts/bench/reference-hook.js'), bundled };
}
