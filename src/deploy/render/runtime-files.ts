// Loads the bundled runtimes (dist/runtime after `npm run build`) as bytes for renderInstall.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RenderError, requiredRuntimeFiles } from './render.js';

export async function loadRuntimeFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const missing: string[] = [];
  for (const name of requiredRuntimeFiles()) {
    const bytes = await fs.readFile(path.join(dir, name)).catch(() => undefined);
    if (bytes === undefined) missing.push(name);
    else files.set(name, bytes);
  }
  if (missing.length > 0) {
    throw new RenderError(
      `${dir} lacks the bundled runtime(s) ${missing.join(', ')}; run \`npm run build\` or pass --runtime-dir`,
    );
  }
  return files;
}

/**
 * The toolkit's own runtime folder: `dist/runtime` next to the CLI bundle (dist/cli/qwen-managed.js),
 * or `<repo>/dist/runtime` when running from the TypeScript sources.
 */
export async function defaultRuntimeDir(moduleUrl: string): Promise<string> {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [
    path.resolve(here, '..', 'runtime'),
    path.resolve(here, '..', '..', '..', 'dist', 'runtime'),
  ];
  for (const candidate of candidates) {
    if ((await fs.stat(path.join(candidate, 'launch-qwen.js')).catch(() => undefined)) !== undefined)
      return candidate;
  }
  return candidates[0]!;
}
