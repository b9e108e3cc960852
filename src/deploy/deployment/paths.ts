// Pinned-path rules for deployment.json. Every pinned path is absolute for the deployment's platform
// and passes pinnedPathProblem: Qwen substitutes `$VAR` in every settings string, so `$` and control
// characters are refused rather than quoted (a `$` would be expanded by Qwen's settings substitution; see src/policy/quote.ts).
import * as path from 'node:path';
import type { Platform } from '../../base/platform.js';
import { type PathProblem, pinnedPathProblem } from '../../policy/quote.js';
import { type Problem, problem } from './problems.js';

const EXAMPLE: Record<Platform, string> = {
  posix: '/opt/qwen-managed',
  windows: 'C:\\Program Files\\qwen-managed',
};

/** An example of the kind of path each key pins: a Node binary is no install directory. */
const KEY_EXAMPLES: Record<string, Record<Platform, string>> = {
  node: { posix: '/opt/node-22/bin/node', windows: 'C:\\Program Files\\nodejs\\node.exe' },
  qwenCli: {
    posix: '/opt/qwen/lib/node_modules/@qwen-code/qwen-code/cli.js',
    windows: 'C:\\Program Files\\qwen\\node_modules\\@qwen-code\\qwen-code\\cli.js',
  },
  repositoryRoot: { posix: '/srv/repos/app', windows: 'D:\\repos\\app' },
  credentials: {
    posix: '/etc/qwen-managed/context.token',
    windows: 'C:\\ProgramData\\qwen-managed\\context.token',
  },
  tls: { posix: '/etc/qwen-managed/ca.pem', windows: 'C:\\ProgramData\\qwen-managed\\ca.pem' },
  'openclaw.node': { posix: '/opt/node-24/bin/node', windows: 'C:\\Program Files\\nodejs\\node.exe' },
  'openclaw.cli': {
    posix: '/opt/openclaw/node_modules/openclaw/openclaw.mjs',
    windows: 'C:\\Program Files\\openclaw\\node_modules\\openclaw\\openclaw.mjs',
  },
  environment: { posix: '/usr/bin', windows: 'C:\\Windows\\System32' },
};

/** The example path shown in a fix for `keyPath` (e.g. `['installDir']`). */
export function exampleFor(keyPath: readonly (string | number)[], platform: Platform): string {
  const [first, second] = keyPath;
  const examples = KEY_EXAMPLES[`${first}.${second}`] ?? KEY_EXAMPLES[String(first)];
  return (examples ?? EXAMPLE)[platform];
}

const MESSAGES: Record<PathProblem, (platform: Platform, example: string) => [string, string]> = {
  empty: (_platform, example) => ['is empty', `write an absolute path such as ${example}`],
  dollar: () => [
    'contains `$`, which Qwen would substitute from the environment inside settings strings',
    'move the file to a path without `$` (quoting cannot protect it)',
  ],
  control: () => [
    'contains a newline, NUL or another control character',
    'use a path made of printable characters only',
  ],
  'not-absolute': (platform, example) => [
    `is not an absolute ${platform} path`,
    `write an absolute path such as ${example}`,
  ],
};

/** Characters Windows never allows in a path (beyond the drive colon). */
const WINDOWS_INVALID = /["<>|?*]/;

export interface PathRules {
  /** Refuse a filesystem root (`/`, `C:\`). */
  notRoot?: boolean;
  /** Skip the normal-form rule (PATH entries such as `/usr/bin/` are fine as written). */
  anyForm?: boolean;
}

/** Problems with one pinned path; `keyPath` names it in deployment.json. */
export function pinnedPathProblems(
  keyPath: readonly (string | number)[],
  value: string,
  platform: Platform,
  rules: PathRules = {},
): Problem[] {
  const found = pinnedPathProblem(value, platform);
  if (found !== undefined) {
    const [message, fix] = MESSAGES[found](platform, exampleFor(keyPath, platform));
    return [problem(keyPath, value, message, fix)];
  }
  const flavour = platform === 'windows' ? path.win32 : path.posix;
  if (platform === 'windows' && (WINDOWS_INVALID.test(value) || value.indexOf(':', 2) !== -1)) {
    return [
      problem(
        keyPath,
        value,
        'contains a character Windows does not allow in a path',
        'remove " < > | ? * and extra colons',
      ),
    ];
  }
  // A normalised path compares equal to what the launcher resolves; `..`, `//` or a trailing separator would not.
  const normal = flavour.normalize(value);
  const trimmed = normal.length > flavour.parse(normal).root.length ? normal.replace(/[\\/]+$/, '') : normal;
  if (rules.anyForm !== true && trimmed !== value) {
    return [problem(keyPath, value, 'is not in normal form', `write ${JSON.stringify(trimmed)}`)];
  }
  if (rules.notRoot === true && flavour.parse(value).root === value) {
    return [problem(keyPath, value, 'is a filesystem root', 'use a dedicated directory below the root')];
  }
  return [];
}

/** The PATH separator of the deployment's platform. */
export function pathListSeparator(platform: Platform): string {
  return platform === 'windows' ? ';' : ':';
}

/** Every entry of the pinned PATH must be absolute: an empty or relative entry searches the cwd. */
export function pinnedPathListProblems(
  keyPath: readonly string[],
  value: string,
  platform: Platform,
): Problem[] {
  const problems: Problem[] = [];
  value.split(pathListSeparator(platform)).forEach((entry, i) => {
    if (entry === '') {
      problems.push(
        problem(
          keyPath,
          value,
          `entry ${i + 1} is empty, which means the current directory`,
          'remove the empty entry',
        ),
      );
      return;
    }
    for (const p of pinnedPathProblems([...keyPath], entry, platform, { anyForm: true })) {
      problems.push({ ...p, message: `entry ${JSON.stringify(entry)} ${p.message}` });
    }
  });
  return problems;
}
