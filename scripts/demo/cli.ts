// The built `qwen-managed` CLI, run as a child process: the demo exercises the product as shipped.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Finished, type RunOptions, run } from './processes.js';

export const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
export const CLI = path.join(ROOT, 'dist/cli/qwen-managed.js');

export class DemoError extends Error {}

export function requireBuild(): void {
  if (!fs.existsSync(CLI))
    throw new DemoError(`${path.relative(ROOT, CLI)} is missing; run \`npm run demo\``);
}

/** `qwen-managed <args>` on this Node; a non-zero exit is a demo failure that shows the CLI's output. */
export async function qwenManaged(args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  const result = await run(process.execPath, [CLI, ...args], options);
  if (result.code !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim();
    throw new DemoError(`qwen-managed ${args[0]} exited with ${result.code ?? result.signal}\n${output}`);
  }
  return result;
}
