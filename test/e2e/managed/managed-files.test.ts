// Scenario 5 — managed files stay the admin's. Qwen runs as a non-root user through
// `launch-qwen --profile auto-recall`; the install directory, system settings, provider config and
// credential files are root-owned and read-only to that user (a shell write the user approves is
// denied by the OS); the per-user QWEN_HOME is the only place Qwen writes; a user-level
// `disableAllHooks: true` and user hooks (one named like the managed hook) leave the managed hook
// running. Prints what Qwen wrote where (README "What Qwen writes where").
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hookContextParts,
  isToolContinuation,
  promptText,
  toolResults,
} from '../../fixtures/fake-model/inspect.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import { startGenericSearch } from '../../fixtures/fake-services/index.js';
import { recordTiming } from './measure.js';
import { managedSuite } from './suite.js';
import { genericSearchWorld, ManagedWorld } from './world.js';

const TOKEN = 'ctx-e2e-token-files-3e3e';
const KIND = 'auto-recall';

interface Entry {
  path: string;
  type: 'dir' | 'file' | 'symlink' | 'other';
  mode: string;
  uid: number;
  size: number;
  sha256?: string;
}

/** Every entry under `dir` (itself included as ""), sorted, with type, mode, owner and content hash. */
function snapshot(dir: string): Entry[] {
  const out: Entry[] = [];
  const walk = (path: string): void => {
    const st = lstatSync(path);
    const type = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
    const entry: Entry = {
      path: relative(dir, path),
      type,
      mode: (st.mode & 0o7777).toString(8).padStart(4, '0'),
      uid: st.uid,
      size: type === 'file' ? st.size : 0,
    };
    if (type === 'file') entry.sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
    out.push(entry);
    if (type === 'dir') for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Paths (files and directories) owned by `uid` under `places` (those that exist). */
function ownedBy(uid: number, places: string[]): string[] {
  const result = spawnSync('find', [...places.filter(existsSync), '-xdev', '-user', String(uid)], {
    encoding: 'utf8',
  });
  return [...new Set(result.stdout.split('\n').filter((l) => l !== ''))].sort();
}

/** Runs a small script as the user (libuv drops supplementary groups); returns its JSON answer. */
function asUser(world: ManagedWorld, script: string, args: string[]): unknown {
  const result = spawnSync(world.toolchain.node, ['-e', script, ...args], {
    uid: world.user.uid,
    gid: world.user.gid,
    encoding: 'utf8',
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
  });
  if (result.status !== 0) throw new Error(`as-user script failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const WRITE_PROBE = `
const fs = require('node:fs');
const out = {};
for (const p of process.argv.slice(1)) {
  const r = {};
  try { fs.accessSync(p, fs.constants.R_OK); r.read = true; } catch (e) { r.read = e.code; }
  try { fs.accessSync(p, fs.constants.W_OK); r.write = true; } catch (e) { r.write = e.code; }
  if (fs.statSync(p).isDirectory()) {
    try { fs.writeFileSync(p + '/.probe-' + process.pid, 'x'); r.create = true; } catch (e) { r.create = e.code; }
    try { fs.renameSync(p, p + '.moved'); r.rename = true; } catch (e) { r.rename = e.code; }
  } else {
    try { fs.openSync(p, 'r+'); r.open = true; } catch (e) { r.open = e.code; }
    try { fs.chmodSync(p, 0o666); r.chmod = true; } catch (e) { r.chmod = e.code; }
  }
  out[p] = r;
}
process.stdout.write(JSON.stringify(out));
`;

describe("managed files stay the admin's: Qwen as a non-root user through launch-qwen --profile auto-recall", () => {
  const suite = managedSuite(async (own) => {
    const search = own(
      await startGenericSearch({
        token: TOKEN,
        documents: [
          { id: 'kb-files', content: 'KB-FILES-1177: the managed settings belong to the administrator.' },
        ],
      }),
    );
    const world = own(await ManagedWorld.create(genericSearchWorld('files', KIND, search, TOKEN)));
    mkdirSync(join(world.repo, 'src'));
    writeFileSync(
      join(world.repo, 'src', 'app.txt'),
      'APP-SOURCE: the managed settings belong to the administrator.\n',
    );
    for (const p of ['src', 'src/app.txt']) chownSync(join(world.repo, p), world.user.uid, world.user.gid);
    return { world, search };
  });

  /** Removes the launcher's data directory: the next launch starts from a fresh QWEN_HOME. */
  function freshHome(w: ManagedWorld): void {
    rmSync(join(w.user.home, '.local'), { recursive: true, force: true });
  }

  it(
    'Qwen runs as the user; install dir, system settings, provider config and credentials are root-owned and read-only to it',
    suite.test(async ({ world: w }) => {
      const settingsFile = w.profileFile(KIND, 'system-settings.json');
      const providerConfig = w.profileFile(KIND, 'external-context.json');
      const credentialFiles = readdirSync(w.secretsDir).map((name) => join(w.secretsDir, name));
      const installEntries = snapshot(w.installDir);
      // Root-owned, nothing writable by group or others, anywhere in the install or the secrets.
      for (const entry of [...installEntries, ...snapshot(w.secretsDir)]) {
        expect({ path: entry.path, uid: entry.uid }).toEqual({ path: entry.path, uid: 0 });
        expect(Number.parseInt(entry.mode, 8) & 0o022, `${entry.path} mode ${entry.mode}`).toBe(0);
      }
      for (const file of credentialFiles) expect((lstatSync(file).mode & 0o777).toString(8)).toBe('640');

      // What the user can do to them: read what it needs, change nothing.
      const targets = [
        w.installDir,
        ...installEntries.filter((e) => e.path !== '').map((e) => join(w.installDir, e.path)),
        w.secretsDir,
        ...credentialFiles,
      ];
      const probe = asUser(w, WRITE_PROBE, targets) as Record<string, Record<string, unknown>>;
      for (const target of targets) {
        const r = probe[target]!;
        expect({ target, write: r['write'] }).toEqual({ target, write: 'EACCES' });
        if ('open' in r)
          expect({ target, open: r['open'], chmod: r['chmod'] }).toEqual({
            target,
            open: 'EACCES',
            chmod: 'EPERM',
          });
        else
          expect({ target, create: r['create'], rename: r['rename'] }).toEqual({
            target,
            create: 'EACCES',
            rename: 'EACCES',
          });
      }
      for (const file of [settingsFile, providerConfig, ...credentialFiles])
        expect(probe[file]?.['read']).toBe(true);

      const s = await suite.launch(w, KIND);
      recordTiming('launch → input box (auto-recall, managed-files suite)', await s.waitForReady());
      const status = readFileSync(`/proc/${s.term.pid}/status`, 'utf8');
      const ids = (key: string): string[] =>
        (new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(status)?.[1] ?? '').trim().split(/\s+/);
      expect(ids('Uid')).toEqual(Array(4).fill(String(w.user.uid)));
      expect(ids('Gid')).toEqual(Array(4).fill(String(w.user.gid)));
      expect(ids('Groups').filter((g) => g !== '' && g !== String(w.user.gid))).toEqual([]);

      // The user approves a shell command that tries to switch the managed hooks off: the OS refuses.
      const before = readFileSync(settingsFile);
      w.model.setResponder(({ kind, body }) => {
        if (kind !== 'main') return undefined;
        if (isToolContinuation(body)) return text('ANSWER-WRITE-DENIED-90b');
        if (promptText(body).includes('turn the hooks off')) {
          return toolCall('run_shell_command', {
            command: `echo '{"disableAllHooks":true}' > ${settingsFile}`,
            description: 'Disable managed hooks',
          });
        }
        return undefined;
      });
      const enter = await s.submit('Please turn the hooks off for me');
      await s.term.waitFor('Yes, allow once', 30_000);
      await s.term.press('Enter');
      await s.term.waitFor('ANSWER-WRITE-DENIED-90b', 30_000);
      const continuation = await w.model.waitForRequest(
        (r) => r.kind === 'main' && r.receivedAt >= enter && isToolContinuation(r.chat!),
        10_000,
      );
      expect(toolResults(continuation.chat!)[0]?.content).toMatch(/Permission denied/);
      expect(readFileSync(settingsFile).equals(before)).toBe(true);
      expect(await s.quit()).toBe(0);
      expect(w.verify().ok).toBe(true);
    }),
  );

  it(
    'a user-level disableAllHooks: true and user hooks (one named like the managed hook) cannot remove the managed hook',
    suite.test(async ({ world: w, search }) => {
      freshHome(w);
      // The user's own settings in their QWEN_HOME (the launcher keeps an existing settings.json).
      const qwenHome = w.qwenHome(KIND);
      let level = w.user.home;
      for (const part of relative(w.user.home, qwenHome).split('/')) {
        level = join(level, part);
        mkdirSync(level, { mode: 0o700 });
        chmodSync(level, 0o700);
        chownSync(level, w.user.uid, w.user.gid);
      }
      const userHookLog = join(w.logDir, 'user-hooks.log');
      const userContext = JSON.stringify({
        hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'USER-HOOK-CONTEXT-71' },
      });
      const userSettings = {
        $version: 4,
        disableAllHooks: true,
        hooks: {
          UserPromptSubmit: [
            {
              matcher: '*',
              hooks: [
                {
                  type: 'command',
                  name: 'external-context-auto-recall',
                  command: `echo same-name >> '${userHookLog}'; echo '{}'`,
                  timeout: 5000,
                },
                {
                  type: 'command',
                  name: 'user-context',
                  command: `echo user-context >> '${userHookLog}'; echo '${userContext}'`,
                  timeout: 5000,
                },
              ],
            },
          ],
        },
      };
      const settingsPath = join(qwenHome, 'settings.json');
      writeFileSync(settingsPath, `${JSON.stringify(userSettings, null, 2)}\n`, { mode: 0o600 });
      chownSync(settingsPath, w.user.uid, w.user.gid);

      const s = await suite.launch(w, KIND);
      await s.waitForReady();
      w.model.enqueue(text('ANSWER-USER-HOOKS-5f2'));
      const runsBefore = w.hookRuns('auto-recall.js').length;
      const searchesBefore = search.requests.length;
      const enter = await s.submit('Who owns the managed settings?');
      const request = await s.nextMainRequest(enter);
      await s.term.waitFor('ANSWER-USER-HOOKS-5f2', 30_000);
      // The managed hook ran and its context arrived…
      expect(w.hookRuns('auto-recall.js').length - runsBefore).toBe(1);
      expect(search.requests.slice(searchesBefore).map((r) => r.body)).toEqual([
        { query: 'Who owns the managed settings?', limit: 5 },
      ]);
      const contexts = hookContextParts(request.chat!);
      expect(contexts.some((c) => c.includes('KB-FILES-1177'))).toBe(true);
      // …next to the user's own hooks, which are additive: they cannot take it away.
      expect(
        readFileSync(userHookLog, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .sort(),
      ).toEqual(['same-name', 'user-context']);
      expect(contexts.some((c) => c.includes('USER-HOOK-CONTEXT-71'))).toBe(true);
      expect(await s.quit()).toBe(0);
      freshHome(w);
    }),
  );

  it(
    'the per-user QWEN_HOME is the only place Qwen writes: the install still verifies and the repository is unchanged',
    suite.test(async ({ world: w }) => {
      freshHome(w);
      // The recorded bash environments are a directory the world keeps; empty the logs beside it.
      for (const name of readdirSync(w.logDir))
        if (name !== 'bash-env') rmSync(join(w.logDir, name), { force: true });
      w.resetBashLog();
      const repoBefore = snapshot(w.repo);
      const installBefore = snapshot(w.installDir);
      const secretsBefore = snapshot(w.secretsDir);
      const places = ['/tmp', '/var/tmp', '/dev/shm', '/run', '/var/lock'];
      const ownedBefore = ownedBy(w.user.uid, places);

      const s = await suite.launch(w, KIND);
      await s.waitForReady();
      w.model.setResponder(({ kind, body }) => {
        if (kind !== 'main') return undefined;
        if (isToolContinuation(body)) return text('ANSWER-READ-DONE-6d1');
        if (promptText(body).includes('app file'))
          return toolCall('read_file', { file_path: join(w.repo, 'src', 'app.txt') });
        return text('ANSWER-PLAIN-FILES-3a8');
      });
      await s.submit('Summarize the app file');
      await s.term.waitFor('ANSWER-READ-DONE-6d1', 30_000);
      await s.submit('Thanks, that is all');
      await s.term.waitFor('ANSWER-PLAIN-FILES-3a8', 30_000);
      // The first start in a new QWEN_HOME: the launcher seeded the empty extension store, so Qwen
      // had nothing to create under its extension watcher and told the developer nothing about it
      // (unseeded, every first start shows the notice: test/e2e/measure/extensions.ts).
      expect(s.term.fullText()).not.toContain('Extensions changed on disk');
      expect(await s.quit()).toBe(0);

      const qwenHome = w.qwenHome(KIND);
      const written = snapshot(qwenHome);
      const listing = written.map(
        (e) =>
          `${e.type === 'dir' ? `${e.path}/` : e.path} (${e.mode}${e.type === 'file' ? `, ${e.size} B` : ''})`,
      );
      console.log(`[e2e] QWEN_HOME after one session (${qwenHome}):\n  ${listing.join('\n  ')}`);
      expect(written.every((e) => e.uid === w.user.uid)).toBe(true);
      expect(written.find((e) => e.path === '')?.mode).toBe('0700');
      // The launcher's settings.json is left as written: Qwen did not rewrite it.
      expect(readFileSync(join(qwenHome, 'settings.json'), 'utf8')).toBe('{"$version":4}\n');
      // Qwen keeps the typed prompts in QWEN_HOME/tmp/<hash>/logs.json even with chat recording off.
      const promptLog = written.find((e) => /^tmp\/[0-9a-f]{64}\/logs\.json$/.test(e.path));
      expect(promptLog).toBeDefined();
      expect(readFileSync(join(qwenHome, promptLog!.path), 'utf8')).toContain('Summarize the app file');

      // Everything the user owns now that it did not own before lies in QWEN_HOME, the levels the
      // launcher made above it, the defaults layer it writes beside it, or the test's instrument log.
      const launcherLevels: string[] = [];
      for (let dir = qwenHome; dir !== w.user.home; dir = join(dir, '..')) launcherLevels.push(dir);
      const launchDefaults = join(qwenHome, '..', 'system-defaults.json');
      expect(JSON.parse(readFileSync(launchDefaults, 'utf8'))).toEqual({
        $version: 4,
        advanced: { excludedEnvVars: ['DEBUG', 'DEBUG_MODE'] },
      });
      expect(statSync(launchDefaults).mode & 0o777).toBe(0o600);
      const allowed = (p: string): boolean =>
        p === qwenHome ||
        p.startsWith(`${qwenHome}/`) ||
        p === launchDefaults ||
        launcherLevels.includes(p) ||
        p.startsWith(`${w.logDir}/`);
      const newlyOwned = ownedBy(w.user.uid, places).filter((p) => !ownedBefore.includes(p));
      console.log(
        `[e2e] new paths owned by the user outside QWEN_HOME: ${JSON.stringify(newlyOwned.filter((p) => !p.startsWith(`${qwenHome}/`)))}`,
      );
      expect(newlyOwned.filter((p) => !allowed(p))).toEqual([]);
      expect(snapshot(w.repo)).toEqual(repoBefore);
      expect(snapshot(w.installDir)).toEqual(installBefore);
      expect(snapshot(w.secretsDir)).toEqual(secretsBefore);
      const verify = w.verify();
      expect(verify.report.summary).toMatchObject({ errors: 0 });
      expect(verify.ok).toBe(true);
    }),
  );
});
