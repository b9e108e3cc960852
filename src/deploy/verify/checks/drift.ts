// Drift: a fresh in-memory render of deployment.json must equal the tree byte for byte.
import { MANIFEST_FILE } from '../../../contracts/install-manifest.js';
import { runtimeRel } from '../../../contracts/layout.js';
import { RUNTIME_CODE_CACHES } from '../../../contracts/runtime-files.js';
import type { RenderedInstall } from '../../render/render.js';
import type { CodeCacheOutcome } from '../../render/runtime-files.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';

const CACHE_FILES = new Set(Object.values(RUNTIME_CODE_CACHES).map((cache) => runtimeRel(cache.file)));

export function checkDrift(
  view: TreeView,
  rendered: RenderedInstall,
  checks: Checks,
  codeCache?: CodeCacheOutcome,
): void {
  const { tree } = view;
  const problems: { file: string; message: string }[] = [];
  const expected = new Map<string, Uint8Array>([...rendered.files].map(([rel, f]) => [rel, f.bytes]));
  expected.set(MANIFEST_FILE, new TextEncoder().encode(rendered.manifestText));
  for (const [rel, bytes] of expected) {
    const found = tree.files.get(rel);
    if (found === undefined)
      problems.push({ file: rel, message: 'is missing; a fresh render of deployment.json produces it' });
    else if (!found.bytes.equals(bytes)) {
      let message = 'differs from a fresh render of deployment.json';
      if (rel === MANIFEST_FILE && tree.manifest !== undefined) {
        if (tree.manifest.deploymentSha256 !== rendered.manifest.deploymentSha256) {
          message += ` (it was rendered from a different deployment.json: sha256 ${tree.manifest.deploymentSha256})`;
        } else if (tree.manifest.toolkitVersion !== rendered.manifest.toolkitVersion) {
          message += ` (rendered by toolkit ${tree.manifest.toolkitVersion}, this is ${rendered.manifest.toolkitVersion})`;
        }
      }
      // A cache is the pinned node's output on the machine that renders: say what this one made.
      if (CACHE_FILES.has(rel) && codeCache !== undefined) {
        message += codeCache.made
          ? ` (made here with ${codeCache.node}; the tree's was made by another node, or none could run where it was rendered: render it again here)`
          : ` (none was made here: ${codeCache.why}; the tree's was made where it was rendered)`;
      }
      problems.push({ file: rel, message });
    }
  }
  for (const rel of tree.files.keys()) {
    if (!expected.has(rel))
      problems.push({ file: rel, message: 'is not produced by a fresh render of deployment.json' });
  }
  if (problems.length === 0)
    checks.add('drift', {}, true, 'the tree equals a fresh render of deployment.json byte for byte');
  for (const p of problems) checks.add('drift', { file: p.file }, false, p.message);
}
