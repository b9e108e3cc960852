// Shared fixtures for the deployment tests: example deployments, small fake runtimes that behave
// like the real ones on the smoke paths (CommonJS, as the install's runtime/package.json declares),
// and helpers that render real trees into temporary directories.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { sha256Hex } from '../../../src/base/hash.js';
import type { InstallManifest } from '../../../src/contracts/install-manifest.js';
import { OPENCLAW_PLUGIN_BUNDLE, RUNTIME_FILES } from '../../../src/contracts/runtime-files.js';
import {
  type ParsedDeployment,
  parseDeploymentText,
  parseDeploymentValue,
} from '../../../src/deploy/deployment/parse.js';
import { DeploymentInvalid, formatProblem } from '../../../src/deploy/deployment/problems.js';
import { fileMode, manifestText } from '../../../src/deploy/render/manifest.js';
import {
  type RenderedInstall,
  type RenderOptions,
  renderInstall,
} from '../../../src/deploy/render/render.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { loadInstallTree, previousInstallOf } from '../../../src/deploy/tree.js';
import type { VerifyReport } from '../../../src/deploy/verify/report.js';
import { runVerify, type VerifyRunOptions } from '../../../src/deploy/verify/run.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const NOW = '2026-11-29T12:00:00.000Z';
export const LATER = '2026-11-30T08:30:00.000Z';
export const TOOLKIT = '0.0.0-test';

export const EXAMPLES = ['on-demand', 'auto-recall', 'write', 'windows', 'dataworks-bff'] as const;

export async function exampleText(name: string): Promise<string> {
  return fs.readFile(path.join(REPO, 'examples', 'deployments', `${name}.json`), 'utf8');
}

export async function example(name: string): Promise<ParsedDeployment> {
  return parseDeploymentText(await exampleText(name), `${name}.json`);
}

export async function allProfilesRaw(): Promise<Record<string, unknown>> {
  return JSON.parse(
    await fs.readFile(path.join(REPO, 'test', 'fixtures', 'deploy', 'all-profiles.json'), 'utf8'),
  );
}

export async function allProfiles(): Promise<ParsedDeployment> {
  return parseDeploymentValue(await allProfilesRaw());
}

const hook = `'use strict';
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => { process.stdout.write('{}'); });
`;

const mcpServer = `'use strict';
const fs = require('node:fs');
const file = process.env.QWEN_EXTERNAL_CONTEXT_CONFIG;
let config;
try { config = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { process.stderr.write('[external-context] The configuration cannot be read.\\n'); process.exit(1); }
const tools = ['context_search'].concat(config.write ? ['context_remember'] : []);
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let i;
  while ((i = buffer.indexOf('\\n')) !== -1) {
    const line = buffer.slice(0, i); buffer = buffer.slice(i + 1);
    const m = JSON.parse(line);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } } }) + '\\n');
    if (m.method === 'tools/list') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })) } }) + '\\n');
  }
});
`;

const launcher = `'use strict';
if (process.argv[2] === '--version') { process.stdout.write('launch-qwen 0.0.0-test\\n'); } else { process.exitCode = 2; }
`;

const rollback = `'use strict';
if (process.argv[2] === '--help') { process.stdout.write('Usage: qwen-managed rollback ...\\n'); } else { process.exitCode = 2; }
`;

/** Every problem of a deployment value as the administrator reads it, or [] when it parses. */
export function deploymentProblems(value: unknown): string[] {
  try {
    parseDeploymentValue(value);
    return [];
  } catch (error) {
    if (error instanceof DeploymentInvalid) return error.problems.map(formatProblem);
    throw error;
  }
}

/** Fake runtimes by file name: enough behaviour for verify's smoke runs. */
export function fakeRuntimes(): Map<string, Uint8Array> {
  const text: Record<string, string> = {
    [RUNTIME_FILES.autoRecall]: hook,
    [RUNTIME_FILES.writeConfirmation]: hook,
    [RUNTIME_FILES.approvalGuard]: hook,
    [RUNTIME_FILES.mcpServer]: mcpServer,
    // Loaded by mcp-server.js; the fake above answers verify's smoke run itself.
    [RUNTIME_FILES.mcpServerMain]: "'use strict';\n",
    // What bin/launch-qwen runs (verify smokes it), and the launcher it would load.
    [RUNTIME_FILES.launcherStart]: launcher,
    [RUNTIME_FILES.launcher]: launcher,
    [RUNTIME_FILES.rollback]: rollback,
    // Loaded lazily by the real bundles; verify's smoke runs never reach them.
    [RUNTIME_FILES.autoRecallSearch]: "'use strict';\n",
    [RUNTIME_FILES.proxyTransport]: "'use strict';\n",
    [RUNTIME_FILES.launchRepository]: "'use strict';\n",
    // The OpenClaw plugin: render copies it into the plugin package; nothing here runs it.
    [OPENCLAW_PLUGIN_BUNDLE]: 'export default {};\n',
  };
  return new Map(Object.entries(text).map(([name, t]) => [name, new TextEncoder().encode(t)]));
}

export function render(parsed: ParsedDeployment, options: Partial<RenderOptions> = {}): RenderedInstall {
  return renderInstall(parsed, fakeRuntimes(), {
    toolkitVersion: TOOLKIT,
    adminUid: 0,
    now: NOW,
    ...options,
  });
}

// Every temp dir is removed when the test file ends: renders are a few hundred KB each and a full
// run makes thousands of them.
const created = new Set<string>();
try {
  afterAll(async () => {
    await Promise.all([...created].map((dir) => fs.rm(dir, { recursive: true, force: true })));
    created.clear();
  });
} catch {
  // Imported outside a test file (the crash test's writer child): that process cleans up nothing.
}

export async function tempDir(prefix = 'qm-deploy-'): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  created.add(dir);
  return dir;
}

/** Renders `parsed` into a fresh temporary directory (staged: files refer to installDir). */
export async function renderToDir(parsed: ParsedDeployment, dir?: string): Promise<string> {
  const out = dir ?? path.join(await tempDir(), 'install');
  const tree = await loadInstallTree(out).catch(() => undefined);
  const previous = tree === undefined ? undefined : previousInstallOf(tree);
  await writeInstall(out, render(parsed, previous === undefined ? {} : { previous }), { now: NOW });
  return out;
}

/** verify of `dir` as the tests run it: no smoke runs, a Linux host, this Node as the fallback. */
export function verifyInstall(dir: string, options: Partial<VerifyRunOptions> = {}): Promise<VerifyReport> {
  return runVerify({
    dir,
    runtimeDir: dir,
    toolkitVersion: TOOLKIT,
    smoke: false,
    hostPlatform: 'linux',
    fallbackNode: process.execPath,
    now: NOW,
    ...options,
  });
}

/** Every file under `dir` (backups/ included) → content, for byte-for-byte tree comparisons. */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else {
        const stat = await fs.stat(path.join(dir, child));
        out.set(
          child,
          `${fileMode(stat.mode)} ${(await fs.readFile(path.join(dir, child))).toString('base64')}`,
        );
      }
    }
  };
  await walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Re-hashes every file of the tree into manifest.json (what a tamperer who also edits the manifest does). */
export async function rehash(dir: string): Promise<void> {
  const tree = await loadInstallTree(dir);
  const manifest = JSON.parse(
    (await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as string,
  ) as InstallManifest;
  const files: InstallManifest['files'] = {};
  for (const [rel, file] of [...tree.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (rel === 'manifest.json') continue;
    files[rel] = { sha256: sha256Hex(file.bytes), mode: fileMode(file.mode) };
  }
  await fs.writeFile(path.join(dir, 'manifest.json'), manifestText({ ...manifest, files }));
}

export async function editJson(file: string, edit: (value: any) => void): Promise<void> {
  const value = JSON.parse(await fs.readFile(file, 'utf8'));
  edit(value);
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
