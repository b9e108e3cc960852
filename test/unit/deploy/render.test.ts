import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/hash.js';
import { installManifestSchema } from '../../../src/contracts/install-manifest-schema.js';
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { acquireInstallLock, LOCK_FILE, LockedError, parseLock } from '../../../src/deploy/render/lock.js';
import { RenderError, type RenderedInstall, renderInstall } from '../../../src/deploy/render/render.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { rollbackInstall } from '../../../src/deploy/rollback/install.js';
import { loadInstallTree, previousInstallOf } from '../../../src/deploy/tree.js';
import { DEFAULT_QWEN_VERSION } from '../../../src/qwen/versions.js';
import {
  allProfiles,
  allProfilesRaw,
  EXAMPLES,
  example,
  exampleText,
  fakeRuntimes,
  LATER,
  NOW,
  REPO,
  render,
  renderToDir,
  snapshotTree,
  TOOLKIT,
  tempDir,
  verifyInstall,
} from './fixtures.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The rendered tree as reviewable text: runtime bundles by hash (they are build outputs), the rest in full. */
function dump(rendered: RenderedInstall): string {
  const parts: string[] = [];
  for (const [rel, file] of rendered.files) {
    const mode = `0${file.mode.toString(8)}`;
    if (rel.startsWith('runtime/') && rel.endsWith('.js'))
      parts.push(`=== ${rel} (${mode}) <bundle sha256 ${sha256Hex(file.bytes).slice(0, 16)}>`);
    else parts.push(`=== ${rel} (${mode})\n${text(file.bytes).replaceAll('\r\n', '⏎\n')}`);
  }
  parts.push(`=== manifest.json\n${rendered.manifestText}`);
  return `${parts.join('\n')}\n`;
}

describe('golden renders (every profile × platform)', () => {
  it.each(EXAMPLES)('examples/deployments/%s.json', async (name) => {
    const rendered = render(await example(name));
    await expect(dump(rendered)).toMatchFileSnapshot(`./__golden__/${name}.txt`);
  });
});

describe('verify of every example, staged here', () => {
  it.each(EXAMPLES.filter((name) => name !== 'windows'))(
    'examples/deployments/%s.json renders a tree verify passes (with --deployment: no drift)',
    async (name) => {
      const dir = await renderToDir(await example(name));
      const runtimeDir = path.join(await tempDir(), 'runtime');
      await fs.mkdir(runtimeDir);
      for (const [file, bytes] of fakeRuntimes()) await fs.writeFile(path.join(runtimeDir, file), bytes);
      const report = await verifyInstall(dir, {
        deploymentFile: path.join(REPO, 'examples', 'deployments', `${name}.json`),
        runtimeDir,
      });
      expect(report.checks.filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
    },
  );
});

describe('renderInstall', () => {
  it.each<[string, Record<string, unknown> | undefined, string[]]>([
    ['no settings of its own', undefined, []],
    ['settings every supported Qwen has', { general: { vimMode: true } }, []],
    // The launcher refuses to start these under the listed versions (they would ignore the key).
    [
      'a setting added after 0.24.0',
      { tools: { workflowNameOnly: true } },
      // Measured in the extracted tables: 0.24.2 added it (policies/qwen/<version>/settings.json).
      ['0.24.0'],
    ],
  ])(
    'each launch plan lists the Qwen versions missing a managed setting: %s',
    async (_name, settings, missing) => {
      expect(missing).not.toContain(DEFAULT_QWEN_VERSION);
      const raw = await allProfilesRaw();
      if (settings === undefined) delete raw.settings;
      else raw.settings = settings;
      const rendered = render(parseDeploymentValue(raw));
      for (const kind of ['on-demand', 'auto-recall', 'write']) {
        const plan = JSON.parse(text(rendered.files.get(`profiles/${kind}/launch.json`)!.bytes));
        expect(plan.qwenVersionsMissingSettings, kind).toEqual(missing);
      }
    },
  );

  it('renders the layout of the spec: bin/, runtime/, profiles/<kind>/…', async () => {
    const rendered = render(await allProfiles());
    expect([...rendered.files.keys()]).toEqual([
      'bin/launch-qwen',
      'profiles/auto-recall/external-context.json',
      'profiles/auto-recall/launch.json',
      'profiles/auto-recall/system-defaults.json',
      'profiles/auto-recall/system-settings.json',
      'profiles/auto-recall/trusted-folders.json',
      'profiles/on-demand/external-context.json',
      'profiles/on-demand/launch.json',
      'profiles/on-demand/mcp.json',
      'profiles/on-demand/system-defaults.json',
      'profiles/on-demand/system-settings.json',
      'profiles/on-demand/trusted-folders.json',
      'profiles/write/external-context.json',
      'profiles/write/launch.json',
      'profiles/write/mcp.json',
      'profiles/write/system-defaults.json',
      'profiles/write/system-settings.json',
      'profiles/write/trusted-folders.json',
      'runtime/approval-guard.js',
      'runtime/auto-recall-search.js',
      'runtime/auto-recall-search.v8cache',
      'runtime/auto-recall.js',
      'runtime/launch-qwen-start.js',
      'runtime/launch-qwen.js',
      'runtime/launch-qwen.v8cache',
      'runtime/launch-repository.js',
      'runtime/mcp-server-main.js',
      'runtime/mcp-server-main.v8cache',
      'runtime/mcp-server.js',
      'runtime/package.json',
      'runtime/proxy-transport.js',
      'runtime/rollback.js',
      'runtime/write-confirmation.js',
    ]);
    expect(rendered.files.get('bin/launch-qwen')?.mode).toBe(0o755);
    expect(text(rendered.files.get('runtime/package.json')!.bytes)).toBe('{"type":"commonjs"}\n');
    for (const kind of ['on-demand', 'auto-recall', 'write'] as const) {
      const plan = launchPlanSchema.parse(
        JSON.parse(text(rendered.files.get(`profiles/${kind}/launch.json`)!.bytes)),
      );
      expect(plan.installId).toBe(sha256Hex('/opt/qwen-managed').slice(0, 16));
      expect(plan.environment.files.QWEN_CODE_SYSTEM_SETTINGS_PATH).toBe(
        `/opt/qwen-managed/profiles/${kind}/system-settings.json`,
      );
    }
  });

  it('lists every file in manifest.json with its sha256 and mode, in the pinned shape', async () => {
    const rendered = render(await allProfiles());
    const manifest = installManifestSchema.parse(JSON.parse(rendered.manifestText));
    expect(Object.keys(manifest.files)).toEqual([...rendered.files.keys()]);
    for (const [rel, file] of rendered.files)
      expect(manifest.files[rel]).toEqual({
        sha256: sha256Hex(file.bytes),
        mode: `0${file.mode.toString(8)}`,
      });
    expect(manifest.profiles).toEqual({
      'on-demand': { state: 'active', changedAt: NOW },
      'auto-recall': { state: 'active', changedAt: NOW },
      write: { state: 'active', changedAt: NOW },
    });
    expect(manifest).toMatchObject({
      toolkitVersion: TOOLKIT,
      adminUid: 0,
      deploymentSha256: (await allProfiles()).sha256,
    });
  });

  it('routes credentials: the provider credential to its profiles (dropped on rollback), model keys where listed', async () => {
    const rendered = render(await allProfiles());
    const plan = (kind: string) =>
      JSON.parse(text(rendered.files.get(`profiles/${kind}/launch.json`)!.bytes));
    expect(plan('write').credentials).toEqual({
      MEM0_API_KEY: { file: '/etc/qwen-managed/mem0.key' },
      OPENAI_API_KEY: { inherit: true },
    });
    expect(plan('write').externalContext.credentials).toEqual(['MEM0_API_KEY']);
    expect(plan('on-demand').credentials).toEqual({
      CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' },
      OPENAI_API_KEY: { inherit: true },
    });
    expect(plan('auto-recall').externalContext).toEqual({
      argv: [],
      configFile: '/opt/qwen-managed/profiles/auto-recall/external-context.json',
      credentials: ['CONTEXT_API_TOKEN'],
    });
  });

  it('is a pure function: the same input gives the same bytes', async () => {
    const parsed = await allProfiles();
    expect(dump(render(parsed))).toBe(dump(render(parsed)));
  });

  it('re-ordering deployment.json (keys of set, credentials, settings) changes no byte', async () => {
    const raw = await allProfilesRaw();
    const reversed = JSON.parse(JSON.stringify(raw), (_k, v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).reverse())
        : v,
    );
    expect(dump(render(parseDeploymentValue(reversed)))).toBe(dump(render(parseDeploymentValue(raw))));
  });

  it('refuses when a bundled runtime is missing', async () => {
    const runtimes = fakeRuntimes();
    runtimes.delete('mcp-server.js');
    const parsed = await allProfiles();
    expect(() => renderInstall(parsed, runtimes, { toolkitVersion: TOOLKIT, adminUid: 0, now: NOW })).toThrow(
      /lacks mcp-server\.js; run `npm run build`/,
    );
  });

  it('omits the approval guard when approvalGuard is false', async () => {
    const raw = await allProfilesRaw();
    raw.approvalGuard = false;
    const settings = text(
      render(parseDeploymentValue(raw)).files.get('profiles/on-demand/system-settings.json')!.bytes,
    );
    expect(settings).not.toContain('managed-approval-guard');
    expect(JSON.parse(settings).hooks).toBeUndefined();
  });
});

describe('tls: the private CA pinned as NODE_EXTRA_CA_CERTS', () => {
  const launchFiles = (rendered: RenderedInstall, kind: string) =>
    JSON.parse(text(rendered.files.get(`profiles/${kind}/launch.json`)!.bytes)).environment.files;

  it.each([
    ['posix', allProfilesRaw, '/etc/qwen-managed/ca.pem', '/opt/qwen-managed/profiles', '/'],
    [
      'windows',
      async () => JSON.parse(await exampleText('windows')),
      'C:\\ProgramData\\qwen-managed\\ca.pem',
      'C:\\Program Files\\qwen-managed\\profiles',
      '\\',
    ],
  ] as const)(
    '%s: every profile pins it after the three admin files',
    async (_platform, base, ca, profiles, sep) => {
      const raw = await base();
      raw.tls = { extraCaCertificates: ca };
      const rendered = render(parseDeploymentValue(raw));
      for (const kind of ['on-demand', 'auto-recall', 'write']) {
        const files = launchFiles(rendered, kind);
        expect(files).toEqual({
          QWEN_CODE_SYSTEM_SETTINGS_PATH: [profiles, kind, 'system-settings.json'].join(sep),
          QWEN_CODE_SYSTEM_DEFAULTS_PATH: [profiles, kind, 'system-defaults.json'].join(sep),
          QWEN_CODE_TRUSTED_FOLDERS_PATH: [profiles, kind, 'trusted-folders.json'].join(sep),
          NODE_EXTRA_CA_CERTS: ca,
        });
        expect(Object.keys(files).at(-1)).toBe('NODE_EXTRA_CA_CERTS');
      }
    },
  );

  it('changes only the launch plans: the CA file stays where the administrator keeps it, not copied into the tree', async () => {
    const raw = await allProfilesRaw();
    const without = render(parseDeploymentValue(raw));
    raw.tls = { extraCaCertificates: '/etc/qwen-managed/ca.pem' };
    const withCa = render(parseDeploymentValue(raw));
    expect([...withCa.files.keys()]).toEqual([...without.files.keys()]);
    const changed = [...withCa.files].filter(
      ([rel, file]) => sha256Hex(file.bytes) !== sha256Hex(without.files.get(rel)!.bytes),
    );
    expect(changed.map(([rel]) => rel)).toEqual([
      'profiles/auto-recall/launch.json',
      'profiles/on-demand/launch.json',
      'profiles/write/launch.json',
    ]);
  });

  it('without tls the plans pin exactly the three admin files (the golden renders above stay byte-identical)', async () => {
    const rendered = render(await allProfiles());
    for (const kind of ['on-demand', 'auto-recall', 'write'])
      expect(Object.keys(launchFiles(rendered, kind))).toEqual([
        'QWEN_CODE_SYSTEM_SETTINGS_PATH',
        'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
        'QWEN_CODE_TRUSTED_FOLDERS_PATH',
      ]);
  });
});

describe('rendering twice gives byte-identical trees', () => {
  it('over the same directory: the second render writes nothing', async () => {
    const parsed = await allProfiles();
    const dir = await renderToDir(parsed);
    const first = await snapshotTree(dir);
    const result = await writeInstall(dir, render(parsed, { previous: await previousOf(dir), now: LATER }), {
      now: LATER,
    });
    expect(result.written).toEqual([]);
    expect(await snapshotTree(dir)).toEqual(first);
  });

  it('into two fresh directories', async () => {
    const parsed = await example('windows');
    const a = await renderToDir(parsed);
    const b = await renderToDir(parsed);
    expect(await snapshotTree(a)).toEqual(await snapshotTree(b));
  });
});

async function previousOf(dir: string) {
  return previousInstallOf(await loadInstallTree(dir))!;
}

describe('profile state across renders', () => {
  it('a rolled-back profile stays rolled back on re-render, byte for byte, and --reactivate restores it', async () => {
    const parsed = await allProfiles();
    const dir = await renderToDir(parsed);
    await rollbackInstall({ dir, kind: 'auto-recall', now: LATER });
    const rolledBack = await snapshotTree(dir);
    const again = render(parsed, { previous: await previousOf(dir), now: '2027-01-01T00:00:00.000Z' });
    expect(again.notices).toEqual([
      'profile auto-recall: stays rolled back; render --reactivate to restore its external context',
    ]);
    await writeInstall(dir, again, { now: '2027-01-01T00:00:00.000Z' });
    expect(await snapshotTree(dir)).toEqual(rolledBack);

    const reactivated = render(parsed, {
      previous: await previousOf(dir),
      now: '2027-02-02T00:00:00.000Z',
      reactivate: true,
    });
    expect(reactivated.manifest.profiles['auto-recall']).toEqual({
      state: 'active',
      changedAt: '2027-02-02T00:00:00.000Z',
    });
    // Untouched profiles keep their changedAt: it changes only with the state.
    expect(reactivated.manifest.profiles['on-demand']).toEqual({ state: 'active', changedAt: NOW });
    const written = await writeInstall(dir, reactivated, { now: '2027-02-02T00:00:00.000Z' });
    expect(written.retired).toEqual(['profiles/auto-recall/rollback.json']);
    expect(
      text((await loadInstallTree(dir)).files.get('profiles/auto-recall/system-settings.json')!.bytes),
    ).toContain('external-context-auto-recall');
  });

  it('refuses to re-render a rolled-back profile whose restored config changed', async () => {
    const parsed = await allProfiles();
    const dir = await renderToDir(parsed);
    const saved = path.join(dir, '..', 'saved.json');
    await fs.writeFile(
      saved,
      '{"version":1,"provider":{"type":"generic-http-search-v1","baseUrl":"https://c.example.com","tokenEnv":"CONTEXT_API_TOKEN"}}\n',
    );
    await rollbackInstall({ dir, kind: 'on-demand', restoreConfig: saved, now: LATER });
    await fs.writeFile(path.join(dir, 'profiles/on-demand/external-context.json'), '{}');
    const previous = await previousOf(dir);
    expect(() => render(parsed, { previous })).toThrow(RenderError);
    expect(() => render(parsed, { previous })).toThrow(
      /no longer holds the provider config restored by rollback/,
    );
  });

  it('a profile removed from deployment.json is retired to backups/, never deleted', async () => {
    const raw = await allProfilesRaw();
    const dir = await renderToDir(parseDeploymentValue(raw));
    const before = await fs.readFile(path.join(dir, 'profiles/write/system-settings.json'));
    delete (raw.profiles as Record<string, unknown>).write;
    delete (raw.credentials as Record<string, unknown>).MEM0_API_KEY;
    (raw.credentials as any).OPENAI_API_KEY.profiles = ['on-demand', 'auto-recall'];
    const next = render(parseDeploymentValue(raw), { previous: await previousOf(dir), now: LATER });
    expect(next.notices).toContain(
      'profile write: removed from deployment.json; its files are retired to backups/',
    );
    const result = await writeInstall(dir, next, { now: LATER });
    expect(result.retired.filter((r) => r.startsWith('profiles/write/')).length).toBe(6);
    await expect(fs.stat(path.join(dir, 'profiles/write'))).rejects.toThrow();
    expect(
      await fs.readFile(path.join(dir, result.backupDir!, 'profiles/write/system-settings.json')),
    ).toEqual(before);
    expect(
      Object.keys(JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')).profiles),
    ).toEqual(['on-demand', 'auto-recall']);
  });
});

describe('writeInstall', () => {
  it('keeps replaced files under backups/<time>/ and writes the manifest last', async () => {
    const raw = await allProfilesRaw();
    const dir = await renderToDir(parseDeploymentValue(raw));
    const oldSettings = await fs.readFile(path.join(dir, 'profiles/on-demand/system-settings.json'), 'utf8');
    (raw.settings as any).model.name = 'another-model';
    const events: string[] = [];
    const result = await writeInstall(
      dir,
      render(parseDeploymentValue(raw), { previous: await previousOf(dir), now: LATER }),
      {
        now: LATER,
        onEvent: (e) => events.push(`${e.step} ${e.path}`),
      },
    );
    expect(result.backupDir).toBe('backups/2026-11-30T08-30-00.000Z');
    expect(
      await fs.readFile(path.join(dir, result.backupDir!, 'profiles/on-demand/system-settings.json'), 'utf8'),
    ).toBe(oldSettings);
    expect(events.at(-1)).toBe('manifest manifest.json');
    expect(events.filter((e) => e.startsWith('stage')).length).toBe(4);
    expect(result.written).toEqual([
      'profiles/auto-recall/system-settings.json',
      'profiles/on-demand/system-settings.json',
      'profiles/write/system-settings.json',
      'manifest.json',
    ]);
  });

  // Negative control (by hand): before, render wrote over a hand edit with only "1 written" to show
  // for it; the edit was in backups/, but nothing said so.
  it('names a file edited by hand since the last render, and keeps that version in backups/', async () => {
    const raw = await allProfilesRaw();
    const dir = await renderToDir(parseDeploymentValue(raw));
    const rel = 'profiles/on-demand/system-settings.json';
    const edited = (await fs.readFile(path.join(dir, rel), 'utf8')).replace('{', '{"edited": true,');
    await fs.writeFile(path.join(dir, rel), edited);
    const again = render(parseDeploymentValue(raw), { previous: await previousOf(dir), now: LATER });
    const result = await writeInstall(dir, again, { now: LATER });
    expect([result.written, result.edited]).toEqual([[rel], [rel]]);
    expect(await fs.readFile(path.join(dir, result.backupDir!, rel), 'utf8')).toBe(edited);
    // A change of deployment.json is no hand edit.
    (raw.settings as any).model.name = 'another-model';
    const changed = render(parseDeploymentValue(raw), { previous: await previousOf(dir), now: LATER });
    const next = await writeInstall(dir, changed, { now: LATER });
    expect(next.written.length).toBeGreaterThan(1);
    expect(next.edited).toEqual([]);
  });

  // Negative control (by hand): a credential file put under installDir went to backups/ with only
  // "1 retired" to show for it.
  it('names a file render never wrote when it moves it to backups/', async () => {
    const raw = await allProfilesRaw();
    const dir = await renderToDir(parseDeploymentValue(raw));
    await fs.mkdir(path.join(dir, 'secrets'));
    await fs.writeFile(path.join(dir, 'secrets', 'context.token'), 'tok\n');
    const again = render(parseDeploymentValue(raw), { previous: await previousOf(dir), now: LATER });
    const result = await writeInstall(dir, again, { now: LATER });
    expect([result.retired, result.unlisted]).toEqual([['secrets/context.token'], ['secrets/context.token']]);
    expect(await fs.readFile(path.join(dir, result.backupDir!, 'secrets/context.token'), 'utf8')).toBe(
      'tok\n',
    );
  });

  it('refuses a non-empty directory that is not an install', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'precious.txt'), 'keep me');
    await expect(writeInstall(dir, render(await allProfiles()), { now: NOW })).rejects.toThrow(
      /not empty and has no manifest\.json/,
    );
    expect(await fs.readdir(dir)).toEqual(['precious.txt']);
  });

  // Negative control (by hand): before, a first render interrupted after its first replacement left
  // a tree without manifest.json that every later render refused as "not empty", though Ctrl+C's
  // message said "run render again to finish".
  it('finishes a first render that was interrupted before its manifest', async () => {
    const dir = path.join(await tempDir(), 'install');
    const rendered = render(await allProfiles());
    let replaced = 0;
    const interrupt = (e: { step: string }) => {
      if (e.step === 'replace' && ++replaced === 5) throw new Error('interrupted');
    };
    await expect(writeInstall(dir, rendered, { now: NOW, onEvent: interrupt })).rejects.toThrow(
      'interrupted',
    );
    expect(await fs.readdir(dir)).not.toContain('manifest.json');
    await writeInstall(dir, rendered, { now: NOW });
    const report = await verifyInstall(dir);
    expect(report.checks.filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
  });

  it('names the file of a non-install directory that render does not write', async () => {
    const dir = await tempDir();
    await fs.mkdir(path.join(dir, 'bin'));
    await fs.writeFile(path.join(dir, 'bin', 'launch-qwen'), 'from an earlier render');
    await fs.writeFile(path.join(dir, 'bin', 'tool'), 'keep me');
    await expect(writeInstall(dir, render(await allProfiles()), { now: NOW })).rejects.toThrow(
      /has no manifest\.json: it holds bin\/tool, which this render does not write; nothing was written\. Fix: /,
    );
    expect(await fs.readFile(path.join(dir, 'bin', 'tool'), 'utf8')).toBe('keep me');
  });

  it('refuses to write through a symlinked directory', async () => {
    const dir = await renderToDir(await allProfiles());
    const elsewhere = await tempDir();
    await fs.rm(path.join(dir, 'profiles'), { recursive: true });
    await fs.symlink(elsewhere, path.join(dir, 'profiles'));
    await expect(writeInstall(dir, render(await allProfiles()), { now: NOW })).rejects.toThrow(
      /must be a directory \(found a symlink to /,
    );
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });

  // Negative control (by hand): without assertRealDirs, render read the files through the link as
  // unchanged, then retired the link itself to backups/ and exited 0 — the directory was gone.
  it.each(['runtime', 'profiles/on-demand'])(
    'refuses a symlinked %s holding the very same files, changing nothing',
    async (rel) => {
      const dir = await renderToDir(await allProfiles());
      const real = path.join(await tempDir(), 'real');
      await fs.cp(path.join(dir, rel), real, { recursive: true });
      await fs.rm(path.join(dir, rel), { recursive: true });
      await fs.symlink(real, path.join(dir, rel));
      // Listed without following links (snapshotTree would read through the link).
      const listing = async () => ({
        entries: (await fs.readdir(dir, { recursive: true })).sort(),
        manifest: await fs.readFile(path.join(dir, 'manifest.json'), 'utf8'),
        real: await snapshotTree(real),
      });
      const before = await listing();
      const again = render(await allProfiles(), { previous: await previousOf(dir) });
      await expect(writeInstall(dir, again, { now: LATER })).rejects.toThrow(
        `${path.join(dir, rel)} must be a directory (found a symlink to ${real}); nothing was changed`,
      );
      expect(await listing()).toEqual(before);
      expect((await fs.lstat(path.join(dir, rel))).isSymbolicLink()).toBe(true);
    },
  );

  it('one writer at a time: a live lock holder makes a second render refuse; a dead one is taken over', async () => {
    const dir = await renderToDir(await allProfiles());
    const lock = await acquireInstallLock(dir, NOW);
    await expect(writeInstall(dir, render(await allProfiles()), { now: LATER })).rejects.toThrow(LockedError);
    await expect(writeInstall(dir, render(await allProfiles()), { now: LATER })).rejects.toThrow(
      /another render or rollback is writing .* \(pid \d+ on .*, since 2026-11-29T12:00:00\.000Z\)/,
    );
    await lock.release();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await fs.writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), nonce: 'n', startedAt: NOW }),
    );
    await writeInstall(dir, render(await allProfiles(), { previous: await previousOf(dir) }), { now: LATER });
    await expect(fs.stat(path.join(dir, LOCK_FILE))).rejects.toThrow();
  });

  it('takes over an empty lock: a writer killed between creating the lock file and writing it', async () => {
    const dir = await renderToDir(await allProfiles());
    await fs.writeFile(path.join(dir, LOCK_FILE), '');
    await writeInstall(dir, render(await allProfiles(), { previous: await previousOf(dir) }), { now: LATER });
    await expect(fs.stat(path.join(dir, LOCK_FILE))).rejects.toThrow();
  });

  // Negative control (by hand): with readLock's bare `JSON.parse(...) as LockContent`, `null` failed
  // with "Cannot read properties of null (reading 'host')" (internal error, exit 70) and `{}` refused
  // with "pid undefined on undefined".
  it.each([
    ['null', 'null'],
    ['an empty object', '{}'],
    ['an array', '[]'],
    ['a string', '"locked"'],
    ['a pid that is text', JSON.stringify({ pid: '1', host: 'h', nonce: 'n', startedAt: NOW })],
    ['pid 0', JSON.stringify({ pid: 0, host: 'h', nonce: 'n', startedAt: NOW })],
    ['no host', JSON.stringify({ pid: 1, nonce: 'n', startedAt: NOW })],
  ])('takes over a lock holding %s (not a lock: read like an empty one)', async (_, content) => {
    expect(parseLock(content)).toBeUndefined();
    const dir = await renderToDir(await allProfiles());
    await fs.writeFile(path.join(dir, LOCK_FILE), content);
    await writeInstall(dir, render(await allProfiles(), { previous: await previousOf(dir) }), { now: LATER });
    await expect(fs.stat(path.join(dir, LOCK_FILE))).rejects.toThrow();
  });

  it('parseLock reads exactly the four fields a writer writes', () => {
    const lock = { pid: 42, host: 'build-1', nonce: 'ab12', startedAt: NOW };
    expect(parseLock(`${JSON.stringify({ ...lock, extra: true })}\n`)).toEqual(lock);
  });

  it('still refuses while a live writer holds the lock, even one caught before it wrote the content', async () => {
    const dir = await renderToDir(await allProfiles());
    const file = path.join(dir, LOCK_FILE);
    await fs.writeFile(file, '');
    // The "writer" finishes writing within the grace period: its lock must be honoured.
    const written = new Promise((resolve) => setTimeout(resolve, 20)).then(() =>
      fs.writeFile(
        file,
        JSON.stringify({ pid: process.pid, host: os.hostname(), nonce: 'x', startedAt: NOW }),
      ),
    );
    await expect(writeInstall(dir, render(await allProfiles()), { now: LATER })).rejects.toThrow(LockedError);
    await written;
  });

  it('restores modes and sweeps temp files left by a killed render', async () => {
    const dir = await renderToDir(await allProfiles());
    await fs.chmod(path.join(dir, 'bin/launch-qwen'), 0o777);
    await fs.writeFile(path.join(dir, 'profiles', '.system-settings.json.qwen-managed-tmp-1-0'), 'half');
    const result = await writeInstall(dir, render(await allProfiles(), { previous: await previousOf(dir) }), {
      now: LATER,
    });
    expect(result.written).toEqual(['bin/launch-qwen']);
    expect((await fs.stat(path.join(dir, 'bin/launch-qwen'))).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(path.join(dir, 'profiles'))).toEqual(['auto-recall', 'on-demand', 'write']);
  });
});
