// One real Qwen session against the fake model, with everything a test needs made in a temp dir:
// QWEN_HOME (user settings → fake model), a system settings file, a workspace, and the pty.
// `dispose()` kills every process the session started, closes the fake model and removes the dir.

import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FakeModelOptions } from '../../fixtures/fake-model/server.js';
import { FakeModel } from '../../fixtures/fake-model/server.js';
import {
  makeQwenHome,
  managedBaseline,
  managedTrustedFolders,
  qwenArgv,
  qwenEnv,
  removeTree,
  writeSettingsFile,
} from './qwen-home.js';
import type { RunLocation } from './run-location.js';
import { TerminalSession } from './terminal.js';
import type { TestUser } from './users.js';

/** The input box's placeholder: Qwen is ready for a prompt when it is on screen. */
export const INPUT_READY = 'Type your message or @path/to/file';

/** The input box once Qwen has drawn the typed `/quit` (`> /quit`; the prompt mark varies by mode). */
const QUIT_TYPED = /^.{0,3}\/quit\s*$/m;

/**
 * A hang bound, never a speed limit: how long Qwen may take to draw the typed `/quit` and then to
 * exit. A loaded 2-core machine took over 15 s; a healthy quit takes about a second.
 */
export const QUIT_HANG_MS = 90_000;

/**
 * Quits Qwen as a person does: types `/quit`, waits until the input box shows it (a loaded Qwen may
 * draw keys seconds late; Enter before then lands in a half-read command), presses Enter, waits for
 * the exit. Resolves with Qwen's exit code; throws with the screen when a step outlasts `hangMs` or
 * Qwen ended by a signal — a kill is not a quit.
 */
export async function quitQwen(term: TerminalSession, hangMs = QUIT_HANG_MS): Promise<number> {
  if (!term.exited) {
    await term.type('/quit');
    await term.waitFor(QUIT_TYPED, hangMs);
    await term.press('Enter');
  }
  const exit = await term.waitForExit(hangMs);
  if (exit.signal) throw term.failure(`Qwen ended by signal ${exit.signal}, not by /quit`);
  return exit.exitCode;
}

export interface QwenScenarioOptions {
  /** System settings (QWEN_CODE_SYSTEM_SETTINGS_PATH). Default: the managed baseline (folder trust on). */
  systemSettings?: Record<string, unknown>;
  /**
   * The trusted-folders file (QWEN_CODE_TRUSTED_FOLDERS_PATH), written before `prepare`. Default:
   * the rules render pins with the workspace trusted; `false`: no file (a folder with no rule).
   */
  trustedFolders?: ((workspace: string) => Record<string, string>) | false;
  /** Mode of the system settings file. Default 0644. */
  systemSettingsMode?: number;
  /** Extra top-level user settings (besides `$version`, auth and model). */
  userSettings?: Record<string, unknown>;
  /** Workspace `.qwen/settings.json`, if any. */
  workspaceSettings?: Record<string, unknown>;
  /** Extra files in the workspace (relative path → content). */
  workspaceFiles?: Record<string, string>;
  /** Extra Qwen arguments after `--extensions none`. */
  args?: string[];
  /** Extra environment (wins over the defaults). */
  env?: Record<string, string>;
  /** Environment variables to leave out (e.g. to test a project `.env` filling them). */
  unsetEnv?: string[];
  /** Wrap the Qwen argv, e.g. `(argv) => ['strace', '-f', …, ...argv]`. */
  wrapArgv?: (argv: [string, ...string[]]) => [string, ...string[]];
  /** Run Qwen as this (non-root) user: QWEN_HOME, HOME and the workspace are chowned to it. */
  user?: TestUser;
  /** Run the pinned Node and Qwen from this run location (required with `user`, who may not reach the clone). */
  location?: RunLocation;
  /** Use this fake model instead of starting one (it is then not closed by dispose). */
  model?: FakeModel;
  modelOptions?: FakeModelOptions;
  cols?: number;
  rows?: number;
  /** Called with the scenario's directories after they are made and before Qwen is spawned. */
  prepare?: (dirs: {
    root: string;
    home: string;
    qwenHome: string;
    workspace: string;
    systemDir: string;
  }) => void;
}

export class QwenScenario {
  private constructor(
    readonly root: string,
    readonly model: FakeModel,
    private readonly ownsModel: boolean,
    readonly qwenHome: string,
    readonly home: string,
    readonly systemSettingsPath: string,
    readonly workspace: string,
    readonly env: Record<string, string>,
    readonly term: TerminalSession,
  ) {}

  static async start(options: QwenScenarioOptions = {}): Promise<QwenScenario> {
    if (options.user && !options.location) {
      throw new Error('a Qwen scenario run as a throwaway user needs a run location (stageRunLocation())');
    }
    const model = options.model ?? (await FakeModel.start(options.modelOptions));
    const root = mkdtempSync(join(tmpdir(), 'qwen-e2e-'));
    chmodSync(root, 0o755);
    const owner = options.user ? { uid: options.user.uid, gid: options.user.gid } : undefined;
    const home = join(root, 'home');
    mkdirSync(home, { mode: 0o755 });
    if (owner) chownSync(home, owner.uid, owner.gid);
    const qwenHome = makeQwenHome({
      baseUrl: model.baseUrl,
      parent: home,
      ...(options.userSettings ? { extra: options.userSettings } : {}),
      ...(owner ? { owner } : {}),
    });
    const systemSettingsPath = join(root, 'system', 'settings.json');
    writeSettingsFile(
      systemSettingsPath,
      options.systemSettings ?? managedBaseline(),
      options.systemSettingsMode,
    );
    const workspace = join(root, 'workspace');
    mkdirSync(workspace, { mode: 0o755 });
    if (options.workspaceSettings) {
      writeSettingsFile(join(workspace, '.qwen', 'settings.json'), options.workspaceSettings);
    }
    for (const [rel, content] of Object.entries(options.workspaceFiles ?? {})) {
      const file = join(workspace, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
    if (owner) chownTree(workspace, owner);
    const trustedFolders = options.trustedFolders ?? ((root: string) => managedTrustedFolders(root));
    if (trustedFolders !== false) {
      writeSettingsFile(join(dirname(systemSettingsPath), 'trusted-folders.json'), trustedFolders(workspace));
    }
    const env = qwenEnv({
      qwenHome,
      systemSettingsPath,
      home,
      ...(options.env ? { extra: options.env } : {}),
      ...(options.unsetEnv ? { unset: options.unsetEnv } : {}),
    });
    options.prepare?.({ root, home, qwenHome, workspace, systemDir: dirname(systemSettingsPath) });
    const argv = qwenArgv(options.args, options.location);
    const term = TerminalSession.spawn({
      argv: options.wrapArgv ? options.wrapArgv(argv) : argv,
      env,
      cwd: workspace,
      ...(options.cols !== undefined ? { cols: options.cols } : {}),
      ...(options.rows !== undefined ? { rows: options.rows } : {}),
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    return new QwenScenario(
      root,
      model,
      options.model === undefined,
      qwenHome,
      home,
      systemSettingsPath,
      workspace,
      env,
      term,
    );
  }

  /** Waits for the input box; resolves with the ms since spawn. */
  async waitForReady(timeoutMs = 45_000): Promise<number> {
    await this.term.waitFor(INPUT_READY, timeoutMs);
    return Date.now() - this.term.startedAt;
  }

  /** Types a prompt like a person and presses Enter. */
  async submit(prompt: string): Promise<void> {
    await this.term.type(prompt);
    // Let the input box render the last character before Enter (a fast Enter can land mid-paste).
    await new Promise((resolve) => setTimeout(resolve, 150));
    await this.term.press('Enter');
  }

  /** `/quit` (quitQwen): resolves with the exit code, throws when Qwen hangs past `hangMs` or is killed. */
  quit(hangMs = QUIT_HANG_MS): Promise<number> {
    return quitQwen(this.term, hangMs);
  }

  /** Kills everything the session started, closes the fake model (if owned), removes the temp dir. */
  async dispose(options: { keepDir?: boolean } = {}): Promise<void> {
    await this.term.kill();
    if (this.ownsModel) await this.model.close();
    if (!options.keepDir) removeTree(this.root);
  }
}

function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, owner);
    else chownSync(path, owner.uid, owner.gid);
  }
}
