// Bundles the reference hook (reference-hook.ts) the way scripts/build.mjs bundles ours: one
// CommonJS file, minified, for the Node the runtimes target.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');

/** Writes `<work>/reference-hook.js` and returns its path; `slowdown` stretches its timeouts. */
export async function buildReferenceHook(work: string, slowdown = 1): Promise<string> {
  const outfile = path.join(work, 'reference-hook.js');
  await build({
    entryPoints: [path.join(ROOT, 'scripts/bench/reference-hook.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20.18',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { REFERENCE_SLOWDOWN: String(slowdown) },
  });
  return outfile;
}
