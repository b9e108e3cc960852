// Bundles the reference hook (reference-hook.ts) with the options scripts/build.mjs bundles ours
// with: one CommonJS file, minified, for the Node the runtimes target.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { RUNTIME_BUNDLE_OPTIONS } from '../build.mjs';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');

/** Writes `<work>/reference-hook.js` and returns its path; `slowdown` stretches its timeouts. */
export async function buildReferenceHook(work: string, slowdown = 1): Promise<string> {
  const outfile = path.join(work, 'reference-hook.js');
  await build({
    ...RUNTIME_BUNDLE_OPTIONS,
    entryPoints: [path.join(ROOT, 'scripts/bench/reference-hook.ts')],
    outfile,
    define: { ...RUNTIME_BUNDLE_OPTIONS.define, REFERENCE_SLOWDOWN: String(slowdown) },
  });
  return outfile;
}
