import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/hash.js';
import { installManifestSchema } from '../../../src/contracts/install-manifest-schema.js';
import { EXTERNAL_CONTEXT_HOOKS, HOOK_APPROVAL_GUARD } from '../../../src/contracts/names.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { removeHooksFromValue } from '../../../src/deploy/jsonc/remove-hooks.js';
import { rollbackInstall } from '../../../src/deploy/rollback/install.js';
import { rollbackSettingsFile } from '../../../src/deploy/rollback/settings-file.js';
import { RollbackError } from '../../../src/deploy/rollback/types.js';
import {
  allProfiles,
  allProfilesRaw,
  editJson,
  LATER,
  NOW,
  rehash,
  renderToDir,
  snapshotTree,
  tempDir,
  verifyInstall,
} from './fixtures.js';

const read = (dir: string, rel: string) => fs.readFile(path.join(dir, rel), 'utf8');
const SAVED_V1 =
  '{ "version": 1, "timeoutMs": 4000,\n  "provider": { "type": "generic-http-search-v1", "baseUrl": "https://old.example.com", "tokenEnv": "CONTEXT_API_TOKEN" } }\n';

async function verifyOk(dir: string): Promise<string[]> {
  const report = await verifyInstall(dir);
  return report.checks
    .filter((c) => !c.ok && c.severity === 'error')
    .map((c) => `${c.id} ${c.file}: ${c.message}`);
}

describe('rollback of an install profile', () => {
  it('removes the hook by name, keeps every other setting and foreign hook, re-hashes the manifest, marks the profile', async () => {
    const dir = await renderToDir(await allProfiles());
    // A foreign hook an administrator added (re-hashed, so the tree is consistent before rollback).
    const foreign = {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'logger qwen', name: 'site-audit' }],
    };
    await editJson(path.join(dir, 'profiles/auto-recall/system-settings.json'), (s) =>
      s.hooks.UserPromptSubmit.push(foreign),
    );
    await rehash(dir);
    const before = JSON.parse(await read(dir, 'profiles/auto-recall/system-settings.json'));

    const outcome = await rollbackInstall({ dir, kind: 'auto-recall', now: LATER });
    expect(outcome.written).toBe(true);
    expect(outcome.removedHooks).toEqual([
      { event: 'UserPromptSubmit', name: 'external-context-auto-recall' },
    ]);

    const after = JSON.parse(await read(dir, 'profiles/auto-recall/system-settings.json'));
    expect(after).toEqual(removeHooksFromValue(before, EXTERNAL_CONTEXT_HOOKS).value);
    expect(after.hooks.UserPromptSubmit).toEqual([foreign]);
    expect(after.hooks.PreToolUse[0].hooks[0].name).toBe(HOOK_APPROVAL_GUARD);
    const { hooks: _a, ...restAfter } = after;
    const { hooks: _b, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore);

    const manifest = installManifestSchema.parse(JSON.parse(await read(dir, 'manifest.json')));
    for (const rel of ['profiles/auto-recall/system-settings.json', 'profiles/auto-recall/rollback.json']) {
      expect(manifest.files[rel]?.sha256).toBe(sha256Hex(await fs.readFile(path.join(dir, rel))));
    }
    expect(manifest.profiles['auto-recall']).toEqual({ state: 'rolled-back', changedAt: LATER });
    expect(manifest.profiles['on-demand']).toEqual({ state: 'active', changedAt: NOW });
    expect(JSON.parse(await read(dir, 'profiles/auto-recall/rollback.json'))).toEqual({
      version: 1,
      removedHooks: ['external-context-auto-recall', 'external-context-memory-write-confirmation'],
    });
    // verify still flags the hand-added hook (system settings are managed), and nothing else.
    const failures = await verifyOk(dir);
    expect(failures.length).toBe(1);
    expect(failures[0]).toContain('unexpected hook "site-audit"');
  });

  it('running it twice changes nothing', async () => {
    const dir = await renderToDir(await allProfiles());
    await rollbackInstall({ dir, kind: 'write', now: LATER });
    const once = await snapshotTree(dir);
    const second = await rollbackInstall({ dir, kind: 'write', now: '2030-01-01T00:00:00.000Z' });
    expect(second).toMatchObject({ changes: [], written: false, removedHooks: [] });
    expect(await snapshotTree(dir)).toEqual(once);
  });

  it('restores a saved version-1 provider config byte for byte, with a backup of the replaced one', async () => {
    const dir = await renderToDir(await allProfiles());
    const saved = path.join(dir, '..', 'saved-v1.json');
    await fs.writeFile(saved, SAVED_V1);
    const original = await read(dir, 'profiles/auto-recall/external-context.json');
    const outcome = await rollbackInstall({ dir, kind: 'auto-recall', restoreConfig: saved, now: LATER });
    expect(await read(dir, 'profiles/auto-recall/external-context.json')).toBe(SAVED_V1);
    expect(await read(dir, `${outcome.backups[0]}/profiles/auto-recall/external-context.json`)).toBe(
      original,
    );
    expect(JSON.parse(await read(dir, 'profiles/auto-recall/rollback.json')).restoredConfigSha256).toBe(
      sha256Hex(SAVED_V1),
    );
    expect(await verifyOk(dir)).toEqual([]);
  });

  it('--remove-guard also removes the approval guard; by default it stays', async () => {
    const dir = await renderToDir(await allProfiles());
    await rollbackInstall({ dir, kind: 'on-demand', now: LATER });
    expect(await read(dir, 'profiles/on-demand/system-settings.json')).toContain(HOOK_APPROVAL_GUARD);
    const outcome = await rollbackInstall({ dir, kind: 'on-demand', removeGuard: true, now: LATER });
    expect(outcome.removedHooks).toEqual([{ event: 'PreToolUse', name: HOOK_APPROVAL_GUARD }]);
    expect(JSON.parse(await read(dir, 'profiles/on-demand/system-settings.json')).hooks).toEqual({});
    expect(JSON.parse(await read(dir, 'profiles/on-demand/rollback.json')).removedHooks).toContain(
      HOOK_APPROVAL_GUARD,
    );
  });

  it('--dry-run reports the changes and writes nothing', async () => {
    const dir = await renderToDir(await allProfiles());
    const before = await snapshotTree(dir);
    const outcome = await rollbackInstall({ dir, kind: 'auto-recall', dryRun: true, now: LATER });
    expect(outcome.written).toBe(false);
    expect(outcome.changes.map((c) => c.file)).toEqual([
      'profiles/auto-recall/system-settings.json',
      'profiles/auto-recall/rollback.json',
      'manifest.json',
    ]);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  // Negative control (by hand): before parseLock, a `null` lock made this throw "Cannot read
  // properties of null (reading 'host')" (internal error, exit 70).
  it.each(['null', '{}', ''])(
    '--dry-run reads a lock holding %j as no holder and writes nothing',
    async (lock) => {
      const dir = await renderToDir(await allProfiles());
      await fs.writeFile(path.join(dir, '.qwen-managed.lock'), lock);
      const before = await snapshotTree(dir);
      const outcome = await rollbackInstall({ dir, kind: 'auto-recall', dryRun: true, now: LATER });
      expect(outcome.written).toBe(false);
      expect(await snapshotTree(dir)).toEqual(before);
    },
  );

  it.each([
    [
      'a profile that is not deployed',
      async (dir: string) => fs.rm(path.join(dir, 'x'), { force: true }),
      'nope',
      /profile nope is not deployed/,
    ],
    [
      'a settings file changed since render',
      async (dir: string) => fs.appendFile(path.join(dir, 'profiles/write/system-settings.json'), ' '),
      'write',
      /differs from its manifest\.json \(profiles\/write\/system-settings\.json has other bytes\): an interrupted render, or tampering; nothing was changed\. Fix: run `qwen-managed verify/,
    ],
    [
      // Re-hashing the whole manifest would vouch for bytes render never wrote.
      'any other listed file changed (never adopted into the manifest)',
      async (dir: string) => fs.appendFile(path.join(dir, 'runtime/auto-recall.js'), '// x'),
      'on-demand',
      /runtime\/auto-recall\.js has other bytes/,
    ],
    [
      // The issue 28 row: rollback used to re-hash a tampered mode into the manifest.
      "a managed file's mode changed since render (never recorded into the manifest)",
      async (dir: string) => fs.chmod(path.join(dir, 'profiles/write/system-settings.json'), 0o666),
      'write',
      /profiles\/write\/system-settings\.json has mode 0666, not 0644/,
    ],
    [
      'a file the manifest does not list',
      async (dir: string) => fs.writeFile(path.join(dir, 'profiles/write/extra.json'), '{}'),
      'write',
      /profiles\/write\/extra\.json is not listed/,
    ],
    [
      'a render or rollback running (the install lock is held by a live process)',
      async (dir: string) =>
        fs.writeFile(
          path.join(dir, '.qwen-managed.lock'),
          JSON.stringify({ pid: process.pid, host: os.hostname(), nonce: 'x', startedAt: NOW }),
        ),
      'write',
      /another render or rollback is writing/,
    ],
  ])('refuses %s', async (_name, mutate, kind, error) => {
    const dir = await renderToDir(await allProfiles());
    await mutate(dir);
    const before = await snapshotTree(dir);
    await expect(rollbackInstall({ dir, kind: kind as 'write', now: LATER })).rejects.toThrow(error);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('after a killed render: takes over its stale lock, sweeps its temp files, rewrites only its own files', async () => {
    const dir = await renderToDir(await allProfiles());
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await fs.writeFile(
      path.join(dir, '.qwen-managed.lock'),
      JSON.stringify({ pid: Number(dead.stdout), host: os.hostname(), nonce: 'dead', startedAt: NOW }),
    );
    await fs.writeFile(
      path.join(dir, 'profiles', 'on-demand', '.mcp.json.qwen-managed-tmp-1-0'),
      'half a file',
    );
    const manifestBefore = JSON.parse(await read(dir, 'manifest.json'));
    await rollbackInstall({ dir, kind: 'auto-recall', now: LATER });
    const entries = await fs.readdir(path.join(dir, 'profiles', 'on-demand'));
    expect(entries.some((e) => e.includes('qwen-managed-tmp'))).toBe(false);
    await expect(fs.stat(path.join(dir, '.qwen-managed.lock'))).rejects.toThrow();
    const manifestAfter = JSON.parse(await read(dir, 'manifest.json'));
    for (const rel of Object.keys(manifestBefore.files)) {
      if (!rel.startsWith('profiles/auto-recall/system-settings'))
        expect(manifestAfter.files[rel], rel).toEqual(manifestBefore.files[rel]);
    }
    expect(await verifyOk(dir)).toEqual([]);
  });

  // Negative control (by hand): `rollback --dir / --profile auto-recall --dry-run` walked the whole
  // disk and failed on a file another process was writing under /opt.
  it('refuses a directory that is not an install before reading anything under it', async () => {
    const dir = await tempDir();
    await fs.mkdir(path.join(dir, 'bin'));
    await fs.writeFile(path.join(dir, 'bin', 'tool'), '');
    await expect(rollbackInstall({ dir, kind: 'auto-recall', now: LATER, dryRun: true })).rejects.toThrow(
      new RegExp(`^--dir ${dir} is not an install tree \\(it has none of manifest\\.json, `),
    );
  });

  it('refuses a saved config that is not version 1', async () => {
    const dir = await renderToDir(await allProfiles());
    const saved = path.join(dir, '..', 'v2.json');
    await fs.copyFile(path.join(dir, 'profiles/auto-recall/external-context.json'), saved);
    await expect(
      rollbackInstall({ dir, kind: 'auto-recall', restoreConfig: saved, now: LATER }),
    ).rejects.toThrow(RollbackError);
    await expect(
      rollbackInstall({ dir, kind: 'auto-recall', restoreConfig: saved, now: LATER }),
    ).rejects.toThrow(/not a restorable version-1 provider config/);
  });

  it('never contacts the provider nor reads the credential', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const raw = await allProfilesRaw();
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      (raw.profiles as any)['on-demand'].provider.baseUrl = base;
      (raw.profiles as any)['auto-recall'].provider.baseUrl = base;
      const credential = path.join(await tempDir(), 'context.token');
      await fs.writeFile(credential, 'secret-value\n', { mode: 0o600 });
      await fs.chmod(credential, 0o000);
      (raw.credentials as any).CONTEXT_API_TOKEN.file = credential;
      const dir = await renderToDir(parseDeploymentValue(raw));
      await rollbackInstall({ dir, kind: 'auto-recall', now: LATER });
      await rollbackInstall({ dir, kind: 'on-demand', now: LATER });
      expect(requests).toBe(0);
      await fs.chmod(credential, 0o600);
      expect(await fs.readFile(credential, 'utf8')).toBe('secret-value\n');
    } finally {
      server.close();
    }
  });
});

// An upstream-style QWEN_HOME/settings.json: hooks live in the user file, with comments and the
// user's own settings and hooks around them.
const UPSTREAM = `{
  // Managed by the platform team. Do not edit by hand.
  "hooks": {
    "UserPromptSubmit": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "exec /absolute/path/to/node /administrator/path/to/dist/auto-recall.js",
            "timeout": 8000,
            "name": "external-context-auto-recall",
            "statusMessage": "Retrieving external context"
          }
        ]
      },
      {
        "matcher": "*",
        "hooks": [{ "type": "command", "command": "~/bin/prompt-log", "name": "my-prompt-log" }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  },
  "mcpServers": { "github": { "command": "github-mcp" } },
  "ui": { "theme": "GitHub" }, /* keep */
  "$version": 4
}
`;

const UPSTREAM_AFTER = `{
  // Managed by the platform team. Do not edit by hand.
  "hooks": {
    "UserPromptSubmit": [
      {
        "matcher": "*",
        "hooks": [{ "type": "command", "command": "~/bin/prompt-log", "name": "my-prompt-log" }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  },
  "mcpServers": { "github": { "command": "github-mcp" } },
  "ui": { "theme": "GitHub" }, /* keep */
  "$version": 4
}
`;

describe('rollback of a hand-made settings file (upstream-style QWEN_HOME/settings.json)', () => {
  it('removes only the managed hook: comments, formatting, foreign hooks and other keys stay', async () => {
    const home = await tempDir();
    const file = path.join(home, 'settings.json');
    await fs.writeFile(file, UPSTREAM, { mode: 0o640 });
    const outcome = await rollbackSettingsFile({ settings: file, now: LATER });
    expect(await fs.readFile(file, 'utf8')).toBe(UPSTREAM_AFTER);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect(outcome.backups).toEqual([`${file}.qwen-managed-backup-2026-11-30T08-30-00.000Z`]);
    expect(await fs.readFile(outcome.backups[0]!, 'utf8')).toBe(UPSTREAM);
  });

  it('is idempotent: the second run changes nothing and makes no backup', async () => {
    const file = path.join(await tempDir(), 'settings.json');
    await fs.writeFile(file, UPSTREAM);
    await rollbackSettingsFile({ settings: file, now: LATER });
    const entries = await fs.readdir(path.dirname(file));
    expect(await rollbackSettingsFile({ settings: file, now: '2031-01-01T00:00:00.000Z' })).toMatchObject({
      changes: [],
      written: false,
    });
    expect(await fs.readdir(path.dirname(file))).toEqual(entries);
    expect(await fs.readFile(file, 'utf8')).toBe(UPSTREAM_AFTER);
  });

  it('restores a saved version-1 config over the config file Qwen reads, equal to the saved one', async () => {
    const dir = await tempDir();
    const settings = path.join(dir, 'settings.json');
    const config = path.join(dir, 'external-context.json');
    const saved = path.join(dir, 'saved-v1.json');
    await fs.writeFile(settings, UPSTREAM);
    await fs.writeFile(
      config,
      '{"version":2,"autoRecall":{"repositoryRoot":"/srv/app"},"provider":{"type":"generic-http-search-v1","baseUrl":"https://c.example.com","tokenEnv":"T"}}',
    );
    await fs.writeFile(saved, SAVED_V1);
    const outcome = await rollbackSettingsFile({ settings, restoreConfig: saved, config, now: LATER });
    expect(await fs.readFile(config, 'utf8')).toBe(SAVED_V1);
    expect(outcome.changes.map((c) => c.file)).toEqual([settings, config]);
    expect(outcome.backups.length).toBe(2);
  });

  // Negative control (by hand): without refuseSymlink the rename replaced the link with a regular
  // file and the real settings file (the one Qwen reads through the link) kept the managed hook.
  it.each([false, true])(
    'refuses a symlinked settings file, naming link and target (dry run: %s)',
    async (dryRun) => {
      const dir = await tempDir();
      const real = path.join(dir, 'real-settings.json');
      const link = path.join(dir, 'settings.json');
      await fs.writeFile(real, UPSTREAM);
      await fs.symlink(real, link);
      await expect(rollbackSettingsFile({ settings: link, dryRun, now: LATER })).rejects.toThrow(
        new RollbackError(
          `${link} is a symlink to ${real}; nothing was changed. Fix: pass the real file (--settings ${real})`,
        ),
      );
      expect(await fs.readlink(link)).toBe(real);
      expect(await fs.readFile(real, 'utf8')).toBe(UPSTREAM);
      expect((await fs.readdir(dir)).sort()).toEqual(['real-settings.json', 'settings.json']);
    },
  );

  // Negative control (by hand, as root): a user's `~/.qwen` linked to a root-only directory — without
  // the check, `rollback --settings ~alice/.qwen/settings.json` emptied root's own hooks and left the
  // backup copy beside them.
  it.each([
    ['--settings', false],
    ['--config', true],
  ] as const)(
    'refuses a %s file reached through a linked directory, naming the real path',
    async (flag, config) => {
      const dir = await tempDir();
      const realDir = path.join(dir, 'root-only');
      await fs.mkdir(realDir, { mode: 0o700 });
      await fs.writeFile(path.join(realDir, 'settings.json'), UPSTREAM);
      await fs.writeFile(path.join(realDir, 'external-context.json'), '{}');
      await fs.symlink(realDir, path.join(dir, 'home-qwen'));
      const settings = path.join(dir, config ? 'root-only' : 'home-qwen', 'settings.json');
      const saved = path.join(dir, 'saved-v1.json');
      await fs.writeFile(saved, SAVED_V1);
      const through = path.join(dir, 'home-qwen', config ? 'external-context.json' : 'settings.json');
      await expect(
        rollbackSettingsFile({
          settings,
          ...(config ? { restoreConfig: saved, config: through } : {}),
          now: LATER,
        }),
      ).rejects.toThrow(
        new RollbackError(
          `${through} is reached through a symlink (${path.join(dir, 'home-qwen')} is ${realDir}); nothing was changed. Fix: pass the real file (${flag} ${path.join(realDir, path.basename(through))}), after checking that it is the one you mean — whoever owns the link chose it`,
        ),
      );
      expect(await fs.readFile(path.join(realDir, 'settings.json'), 'utf8')).toBe(UPSTREAM);
      expect(await fs.readFile(path.join(realDir, 'external-context.json'), 'utf8')).toBe('{}');
      expect((await fs.readdir(realDir)).sort()).toEqual(['external-context.json', 'settings.json']);
    },
  );

  it('refuses a symlinked --config before writing anything', async () => {
    const dir = await tempDir();
    const settings = path.join(dir, 'settings.json');
    const real = path.join(dir, 'real-config.json');
    const config = path.join(dir, 'external-context.json');
    const saved = path.join(dir, 'saved-v1.json');
    await fs.writeFile(settings, UPSTREAM);
    await fs.writeFile(real, '{}');
    await fs.symlink(real, config);
    await fs.writeFile(saved, SAVED_V1);
    await expect(
      rollbackSettingsFile({ settings, restoreConfig: saved, config, now: LATER }),
    ).rejects.toThrow(`${config} is a symlink to ${real}; nothing was changed`);
    expect(await fs.readFile(settings, 'utf8')).toBe(UPSTREAM);
    expect(await fs.readFile(real, 'utf8')).toBe('{}');
  });

  it('removes a chosen managed hook (--hooks) and refuses a file it cannot parse', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'settings.json');
    await fs.writeFile(file, UPSTREAM);
    const outcome = await rollbackSettingsFile({ settings: file, hooks: [HOOK_APPROVAL_GUARD], now: LATER });
    expect(outcome.changes).toEqual([]);
    await fs.writeFile(file, '{"hooks": ');
    await expect(rollbackSettingsFile({ settings: file, now: LATER })).rejects.toThrow(
      /settings\.json: expected a property name|unexpected character/,
    );
    expect(await fs.readFile(file, 'utf8')).toBe('{"hooks": ');
  });
});
