// The world both hostile-repository suites start (hostile-files, hostile-repository): a knowledge
// base and a Mem0 platform behind the auto-recall and write profiles, the model a repository would
// send what it steals to, and a markers directory anyone may write, where planted commands and
// hooks leave their trace.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { isToolContinuation, toolResults } from '../../fixtures/fake-model/inspect.js';
import { FakeModel, text, toolCall } from '../../fixtures/fake-model/server.js';
import {
  type FakeService,
  startGenericSearch,
  startMem0Platform,
} from '../../fixtures/fake-services/index.js';
import { mem0PlatformProvider } from '../../fixtures/runtime-config.js';
import type { ManagedSession } from './session.js';
import type { ManagedSuite, Own } from './suite.js';
import { ManagedWorld } from './world.js';

/** Git as the developer would run it in `repo`: no system or user configuration, a fixed author. */
export function repoGit(repo: string, ...args: string[]): void {
  execFileSync('/usr/bin/git', ['-c', 'safe.directory=*', '-C', repo, ...args], {
    env: {
      PATH: '/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'dev',
      GIT_AUTHOR_EMAIL: 'dev@example.invalid',
      GIT_COMMITTER_NAME: 'dev',
      GIT_COMMITTER_EMAIL: 'dev@example.invalid',
    },
  });
}

export interface HostileWorld {
  world: ManagedWorld;
  search: FakeService;
  platform: FakeService;
  evil: FakeModel;
  markers: string;
}

export async function startHostileWorld(
  own: Own,
  options: {
    label: string;
    token: string;
    mem0Key: string;
    document: { id: string; content: string };
    environment?: Record<string, string>;
  },
): Promise<HostileWorld> {
  const search = own(await startGenericSearch({ token: options.token, documents: [options.document] }));
  const platform = own(await startMem0Platform({ apiKey: options.mem0Key }));
  const evil = own(await FakeModel.start());
  const world = own(
    await ManagedWorld.create({
      label: options.label,
      profiles: {
        'auto-recall': {
          provider: { type: 'generic-http-search-v1', baseUrl: search.url, tokenEnv: 'CONTEXT_API_TOKEN' },
        },
        write: { provider: mem0PlatformProvider(platform.url) },
      },
      credentials: { CONTEXT_API_TOKEN: options.token, MEM0_API_KEY: options.mem0Key },
      services: { 'generic-search': search, 'mem0-platform': platform },
      ...(options.environment === undefined ? {} : { environment: options.environment }),
    }),
  );
  const markers = join(world.logDir, 'markers');
  mkdirSync(markers);
  // The developer (another user) writes here: umask must not narrow it.
  chmodSync(markers, 0o777);
  return { world, search, platform, evil, markers };
}

/** Workspace settings whose UserPromptSubmit hook touches `markerFile`: the trace a repository hook that ran leaves. */
export function markerHookSettings(markerFile: string): string {
  return JSON.stringify({
    hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${markerFile}` }] }] },
  });
}

/**
 * The write session started directly (no launcher) with the managed system settings as `edit` leaves
 * them: a negative control's "the same session without this defence". `label` names their directory.
 */
export function startWithSettings<T>(
  suite: ManagedSuite<T>,
  world: ManagedWorld,
  label: string,
  edit: (settings: Record<string, Record<string, unknown> | undefined>) => void,
  credentials: Record<string, string>,
): Promise<ManagedSession> {
  const settings = world.systemSettings('write') as Record<string, Record<string, unknown> | undefined>;
  edit(settings);
  const dir = join(world.root, label);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'system-settings.json'), JSON.stringify(settings));
  chmodSync(dir, 0o755);
  return suite.direct(world, 'write', {
    credentials,
    pinned: { QWEN_CODE_SYSTEM_SETTINGS_PATH: join(dir, 'system-settings.json') },
  });
}

/** The write session without its PreToolUse hooks: the approval guard's negative control (what Qwen does on its own). */
export function startWithoutGuard<T>(
  suite: ManagedSuite<T>,
  world: ManagedWorld,
  credentials: Record<string, string>,
): Promise<ManagedSession> {
  return startWithSettings(
    suite,
    world,
    'unguarded',
    (settings) => delete settings['hooks']?.['PreToolUse'],
    credentials,
  );
}

/** The developer's Qwen home as the launcher leaves it: each level their own private directory. */
export function developerQwenHome(world: ManagedWorld): string {
  const home = world.qwenHome('write');
  const levels = relative(world.user.home, home).split('/');
  for (let i = 1; i <= levels.length; i++) {
    const dir = join(world.user.home, ...levels.slice(0, i));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    execFileSync('chown', [`${world.user.uid}:${world.user.gid}`, dir]);
  }
  return home;
}

/**
 * `patch` merged into the developer's own settings (settings.json in the launcher's QWEN_HOME, where
 * Qwen stores "Always allow … for this user"); returns the undo, which puts back what was there.
 */
export function withUserSettings(world: ManagedWorld, patch: Record<string, unknown>): () => void {
  const settings = join(developerQwenHome(world), 'settings.json');
  const before = existsSync(settings) ? readFileSync(settings, 'utf8') : undefined;
  writeFileSync(
    settings,
    JSON.stringify({ $version: 4, ...(before === undefined ? {} : JSON.parse(before)), ...patch }),
  );
  execFileSync('chown', [`${world.user.uid}:${world.user.gid}`, settings]);
  return () => {
    if (before === undefined) rmSync(settings, { force: true });
    else writeFileSync(settings, before);
  };
}

/** The model's answer once a scripted call has its result (a second call in one session needs its own). */
export const ANSWER = 'ANSWER-AFTER-TOOL';

/** On the next prompt the model calls `name` with `args` once, then answers `answer`. */
export function scriptCall(
  world: ManagedWorld,
  name: string,
  args: Record<string, unknown>,
  answer = ANSWER,
): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text(answer);
    return toolCall(name, args);
  });
}

/** What the model received from tools since request number `since`. */
export function toolOutput(world: ManagedWorld, since: number): string {
  return world.model.requests
    .slice(since)
    .filter((r) => r.chat !== undefined)
    .flatMap((r) => toolResults(r.chat!).map((t) => JSON.stringify(t)))
    .join('\n');
}

/** The model makes the call once; whether it ran with no dialog (a dialog is declined, the turn ends). */
export async function modelCalls(
  s: ManagedSession,
  name: string,
  args: Record<string, unknown>,
  answer = ANSWER,
): Promise<boolean> {
  scriptCall(s.world, name, args, answer);
  await s.submit('Please look around');
  const shown = await s.ranOrAsked(answer);
  expect(shown).not.toBe('timeout');
  return shown === 'ran';
}

/**
 * An "asks first" row: the model makes the call, a confirmation saying `dialog` shows, the developer
 * declines it and the turn ends. Resolves with the dialog's screen and everything the model got from
 * tools in the meantime (the row asserts what the dialog names and that nothing leaked).
 */
export async function declinedCall(
  s: ManagedSession,
  name: string,
  args: Record<string, unknown>,
  dialog?: RegExp,
): Promise<{ dialog: string; toolOutput: string }> {
  const since = s.world.model.requests.length;
  scriptCall(s.world, name, args);
  await s.submit('Please look around');
  const shown = await s.decline(dialog);
  return { dialog: shown, toolOutput: toolOutput(s.world, since) };
}

/** `text` on `screen`, ignoring where the terminal wrapped it (a long path breaks across lines). */
export function shows(screen: string, text: string): boolean {
  return screen.replace(/\s+/g, '').includes(text.replace(/\s+/g, ''));
}
