// Runs the rendered auto-recall hook the way Qwen 0.24.4 does on POSIX: `bash -c <command>` with bash
// from the PATH Qwen has, cwd = the session's cwd, the event JSON on stdin, and Qwen's environment —
// the launcher's (from `qwen-managed plan --json`) plus the variables Qwen adds for every hook.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlanReport } from '../../src/cli/commands/plan.js';
import { credentialFileValue } from '../../src/policy/routed-credentials.js';
import { isPlainObject } from '../../src/text/json.js';
import { DemoError } from './cli.js';
import { type Finished, run } from './processes.js';

export const HOOK_NAME = 'external-context-auto-recall';

export interface RenderedHook {
  command: string;
  timeout: number;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The auto-recall entry under `hooks.UserPromptSubmit` of the rendered system settings. */
export function readAutoRecallHook(settingsFile: string): RenderedHook {
  const settings: unknown = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  const groups =
    isPlainObject(settings) && isPlainObject(settings['hooks']) ? settings['hooks']['UserPromptSubmit'] : [];
  for (const group of list(groups)) {
    for (const hook of list(isPlainObject(group) ? group['hooks'] : [])) {
      if (!isPlainObject(hook) || hook['name'] !== HOOK_NAME) continue;
      if (typeof hook['command'] === 'string' && typeof hook['timeout'] === 'number') {
        return { command: hook['command'], timeout: hook['timeout'] };
      }
    }
  }
  throw new DemoError(`${settingsFile} has no ${HOOK_NAME} hook`);
}

/** The plan's environment with the values it redacts filled in the way the launcher fills them. */
export function launcherEnvironment(
  report: PlanReport,
  callerEnv: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of report.environment) {
    let value: string | undefined = entry.value;
    if (entry.redacted === true) {
      const file = entry.from?.startsWith('file ') === true ? entry.from.slice('file '.length) : undefined;
      value = file === undefined ? callerEnv[entry.name] : credentialFileValue(fs.readFileSync(file, 'utf8'));
    }
    if (value === undefined) throw new DemoError(`no value for ${entry.name} in the launcher plan`);
    env[entry.name] = value;
  }
  return env;
}

/** What Qwen adds to its own environment for a command hook. */
export function qwenHookEnvironment(
  launcherEnv: Record<string, string>,
  cwd: string,
  sessionId: string,
): Record<string, string> {
  return {
    ...launcherEnv,
    GEMINI_PROJECT_DIR: cwd,
    CLAUDE_PROJECT_DIR: cwd,
    QWEN_PROJECT_DIR: cwd,
    QWEN_CODE_SESSION_ID: sessionId,
  };
}

/** The `bash` Qwen would start: the first executable one on its PATH. */
export function bashOnPath(pathValue: string): string {
  for (const dir of pathValue.split(path.delimiter)) {
    const candidate = path.join(dir, 'bash');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  throw new DemoError(`no bash on the pinned PATH ${pathValue}`);
}

export function runHook(
  hook: RenderedHook,
  options: { cwd: string; env: Record<string, string>; stdin: string },
): Promise<Finished> {
  return run(bashOnPath(options.env['PATH'] ?? ''), ['-c', hook.command], options);
}
