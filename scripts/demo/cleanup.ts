// Cleanup runs once, whichever way the demo ends — success, failure, Ctrl+C or SIGTERM: stop every
// child (the server first, so its exit code can be shown), then remove the temporary directory and
// any per-user state that appeared for this install.
import * as fs from 'node:fs';
import type { RunningServer } from './context-server.js';
import { stopAll } from './processes.js';
import { cleanQwenHome, type QwenHomeWatch } from './qwen-home.js';
import { removeWorkspace, type Workspace } from './workspace.js';

export interface CleanupState {
  workspace?: Workspace;
  server?: RunningServer;
  qwenHome?: QwenHomeWatch;
}

export interface CleanupReport {
  server: string;
  tempDir: string;
  qwenHome: string;
}

let started: Promise<CleanupReport> | undefined;

async function cleanUp(state: CleanupState): Promise<CleanupReport> {
  const serverExit = state.server === undefined ? undefined : await state.server.stop();
  await stopAll();
  const dir = state.workspace?.dir;
  if (dir !== undefined) removeWorkspace(dir);
  return {
    server: serverExit === undefined ? 'never started' : `stopped (exit ${serverExit})`,
    tempDir:
      dir === undefined ? 'never created' : fs.existsSync(dir) ? `STILL PRESENT: ${dir}` : `removed ${dir}`,
    qwenHome: state.qwenHome === undefined ? 'never computed' : cleanQwenHome(state.qwenHome),
  };
}

export function cleanup(state: CleanupState): Promise<CleanupReport> {
  started ??= cleanUp(state);
  return started;
}
