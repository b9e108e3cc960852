// Types of scripts/build.mjs for the TypeScript that imports it (the benchmarks, the launcher tests).
import type { BuildOptions, Plugin } from 'esbuild';

/** esbuild options of every runtime bundle (and of the bench's reference hook, built the same way). */
export const RUNTIME_BUNDLE_OPTIONS: BuildOptions & { define: Record<string, string> };
/**
 * Bundles every runtime into `dir`, with the marker that makes its `.js` files CommonJS; `together`
 * lists importers whose lazily loaded pieces stay in their bundle instead of a sibling one.
 */
export function buildRuntimes(dir: string, plugins?: Plugin[], together?: string[]): Promise<void>;
