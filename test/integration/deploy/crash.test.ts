import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MANIFEST_FILE } from '../../../src/contracts/install-manifest.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { loadInstallTree, previousInstallOf } from '../../../src/deploy/tree.js';
import { NOW, REPO, tempDir, verifyInstall } from '../../unit/deploy/fixtures.js';
import { type RuntimeSize, renderA, renderB } from './crash-fixture.js';

const CHILD = path.join(REPO, 'test', 'integration', 'deploy', 'crash-child.ts');

async function installA(): Promise<{ dir: string; a: Map<string, Buffer> }> {
  const root = await tempDir('qm-crash-');
  // Each case writes a few hundred MB (the tree, its probe copy, backups): never leave them behind.
  onTestFinished(() => fs.rm(root, { recursive: true, force: true }));
  const dir = path.join(root, 'install');
  const rendered = await renderA();
  await writeInstall(dir, rendered, { now: NOW });
  const a = new Map([...rendered.files].map(([rel, f]) => [rel, Buffer.from(f.bytes)]));
  a.set(MANIFEST_FILE, Buffer.from(rendered.manifestText));
  return { dir, a };
}

/** Starts the child; resolves once `kill(lines)` says so, after SIGKILL, with what it printed. */
function runChild(
  dir: string,
  size: RuntimeSize,
  mode: 'pause' | 'run',
  killWhen: (lines: string[]) => boolean,
  delayMs = 0,
  pauseAt = -1,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // One process (node with tsx's loader), not the tsx CLI: its wrapper would survive as a grandchild.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, mode, String(pauseAt), size], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffer = '';
    let stderr = '';
    let killing = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      if (!killing && killWhen(lines)) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL' || lines.includes('done')) resolve(lines);
      else reject(new Error(`child exited ${code}: ${stderr}`));
    });
  });
}

/** A file of A that B no longer renders, retired (moved, complete) under backups/. */
async function retired(dir: string, rel: string, bytes: Buffer): Promise<boolean> {
  const backups = await fs.readdir(path.join(dir, 'backups')).catch(() => [] as string[]);
  for (const stamp of backups) {
    const copy = await fs.readFile(path.join(dir, 'backups', stamp, rel)).catch(() => undefined);
    if (copy?.equals(bytes) === true) return true;
  }
  return false;
}

/**
 * Every previously installed file is present and complete: A's bytes or B's bytes, never a mix; a
 * file B no longer renders is either still in place or retired whole to backups/ (after B's manifest).
 */
async function expectIntact(dir: string, a: Map<string, Buffer>, b: Map<string, Buffer>): Promise<void> {
  const tree = await loadInstallTree(dir);
  const manifestIsB = tree.files.get(MANIFEST_FILE)!.bytes.equals(b.get(MANIFEST_FILE)!);
  for (const [rel, bytes] of a) {
    const found = tree.files.get(rel);
    if (found === undefined && !b.has(rel)) {
      expect(manifestIsB, `${rel} may be retired only after the new manifest`).toBe(true);
      expect(await retired(dir, rel, bytes), `${rel} must be complete in backups/`).toBe(true);
      continue;
    }
    expect(found, `${rel} must exist`).toBeDefined();
    const isA = found!.bytes.equals(bytes);
    const isB = b.has(rel) && found!.bytes.equals(b.get(rel)!);
    expect(isA || isB, `${rel} must be the old or the new version, complete`).toBe(true);
    if (rel.endsWith('.json')) expect(() => JSON.parse(found!.bytes.toString('utf8'))).not.toThrow();
  }
  // The manifest never describes files that are not there yet.
  const manifest = tree.manifest!;
  expect(manifest).toBeDefined();
  if (manifestIsB) {
    for (const rel of Object.keys(manifest.files))
      expect(tree.files.get(rel)?.bytes.equals(b.get(rel)!), rel).toBe(true);
  }
}

async function bFiles(
  dir: string,
  size: RuntimeSize,
): Promise<{ b: Map<string, Buffer>; rendered: Awaited<ReturnType<typeof renderB>> }> {
  const rendered = await renderB(size, previousInstallOf(await loadInstallTree(dir)));
  const b = new Map([...rendered.files].map(([rel, f]) => [rel, Buffer.from(f.bytes)]));
  b.set(MANIFEST_FILE, Buffer.from(rendered.manifestText));
  return { b, rendered };
}

async function recoverAndVerify(dir: string, rendered: Awaited<ReturnType<typeof renderB>>): Promise<void> {
  // The next render completes the job: the tree is then exactly B, temp files swept.
  await writeInstall(dir, rendered, { now: '2026-12-02T00:00:00.000Z' });
  const report = await verifyInstall(dir);
  expect(report.checks.filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
}

describe('a render killed with SIGKILL mid-write leaves every installed file intact and loadable', () => {
  // Kill points: before the first/middle/last staged temp file, before the first/middle/last
  // replacement, before the manifest, before the first retirement.
  const POINTS = [
    'stage:0',
    'stage:mid',
    'stage:last',
    'replace:0',
    'replace:mid',
    'replace:last',
    'manifest:0',
    'retire:0',
  ] as const;

  // The child pauses at the exact event, so small runtimes kill at the same point as large ones
  // would, without writing hundreds of MB per case (which ran past a minute on a loaded machine).
  it.each(POINTS)(
    'killed just before %s',
    async (point) => {
      const { dir, a } = await installA();
      const { b, rendered } = await bFiles(dir, 'small');
      const [step, which] = point.split(':') as [string, string];
      // Learn the event sequence from an uninterrupted dry run on a copy.
      const probe = path.join(path.dirname(dir), 'probe');
      await fs.cp(dir, probe, { recursive: true });
      const events: string[] = [];
      await writeInstall(probe, rendered, { now: NOW, onEvent: (e) => events.push(e.step) });
      const ofStep = events
        .map((s, i) => [s, i] as const)
        .filter(([s]) => s === step)
        .map(([, i]) => i);
      expect(ofStep.length).toBeGreaterThan(0);
      const target =
        which === '0'
          ? ofStep[0]!
          : which === 'last'
            ? ofStep.at(-1)!
            : ofStep[Math.floor(ofStep.length / 2)]!;

      const lines = await runChild(
        dir,
        'small',
        'pause',
        (l) => l.some((line) => line.startsWith(`event ${target} `)),
        0,
        target,
      );
      expect(lines.some((line) => line.startsWith(`event ${target} ${step}`))).toBe(true);
      await expectIntact(dir, a, b);
      await recoverAndVerify(dir, rendered);
    },
    120_000,
  );

  it.each([0, 10, 25, 60])(
    'killed at a random moment while writing large files (%i ms in)',
    async (delay) => {
      const { dir, a } = await installA();
      const { b, rendered } = await bFiles(dir, 'large');
      const lines = await runChild(dir, 'large', 'run', (l) => l.includes('ready'), delay);
      // Writing ~150 MB takes far longer than 10 ms: the early kills land mid-write.
      if (delay <= 10) expect(lines).not.toContain('done');
      await expectIntact(dir, a, b);
      await recoverAndVerify(dir, rendered);
    },
    // Hundreds of MB written and hashed per case: a loaded machine's disk can take minutes.
    240_000,
  );
});
