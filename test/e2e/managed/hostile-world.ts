// The world both hostile-repository suites start (hostile-files, hostile-repository): a knowledge
// base and a Mem0 platform behind the auto-recall and write profiles, the model a repository would
// send what it steals to, and a markers directory anyone may write, where planted commands and
// hooks leave their trace.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeModel } from '../../fixtures/fake-model/server.js';
import {
  type FakeService,
  startGenericSearch,
  startMem0Platform,
} from '../../fixtures/fake-services/index.js';
import { mem0PlatformProvider } from '../../fixtures/runtime-config.js';
import type { ManagedSession } from './session.js';
import type { ManagedSuite, Own } from './suite.js';
import { ManagedWorld } from './world.js';

export interface HostileWorld {
  world: ManagedWorld;
  search: FakeService;
  platform: FakeService;
  evil: FakeModel;
  markers: string;
}

export async function startHostileWorld(
  own: Own,
  options: { label: string; token: string; mem0Key: string; document: { id: string; content: string } },
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
 * The write session started directly with the managed system settings minus their PreToolUse hooks:
 * the approval guard's negative control (what Qwen does on its own with the same call).
 */
export function startWithoutGuard<T>(
  suite: ManagedSuite<T>,
  world: ManagedWorld,
  credentials: Record<string, string>,
): Promise<ManagedSession> {
  const settings = world.systemSettings('write') as { hooks?: Record<string, unknown> };
  delete settings.hooks?.['PreToolUse'];
  const dir = join(world.root, 'unguarded');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'system-settings.json'), JSON.stringify(settings));
  chmodSync(dir, 0o755);
  return suite.direct(world, 'write', {
    credentials,
    pinned: { QWEN_CODE_SYSTEM_SETTINGS_PATH: join(dir, 'system-settings.json') },
  });
}
