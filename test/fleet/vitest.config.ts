import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The fleet suites, outside `npm test`: the `npm pack` tarball installed into a temporary prefix
// (needs the npm registry or npm's cache), and, only when QWEN_MANAGED_FLEET_INSTALL=1 and root, the
// Debian package installed on this machine and driven by the Ansible role (scripts/fleet/ci.sh).
// One file at a time: the package suite installs system-wide and starts the real Qwen.
export default defineConfig({
  root: resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: {
    name: 'fleet',
    include: ['test/fleet/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
