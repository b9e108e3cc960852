// I/O for src/deploy/deployment/pinned-host.ts: what this machine says about a deployment's pins, read
// when render runs where they are (a POSIX deployment on a POSIX machine).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { qwenPackageInfo } from '../host/qwen-package.js';
import type { PinnedHostFacts } from './deployment/pinned-host.js';
import type { Deployment } from './deployment/schema.js';

/** `<node> --version`, or undefined when the path is not a Node that answers. */
export function nodeVersionAt(node: string): string | undefined {
  try {
    const out = execFileSync(node, ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      env: {},
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return /^v\d+\.\d+\.\d+/.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

export function readPinnedHostFacts(deployment: Pick<Deployment, 'qwenCli' | 'node'>): PinnedHostFacts {
  const facts: PinnedHostFacts = {};
  let real: string | undefined;
  try {
    real = fs.realpathSync(deployment.qwenCli);
  } catch {
    // absent here: render may run on a staging machine
  }
  if (real !== undefined) {
    facts.qwenCliReal = real;
    const info = qwenPackageInfo(real, { readFileSync: (f) => fs.readFileSync(f, 'utf8') });
    if (info.qwenPackage)
      facts.qwen = {
        root: info.root,
        version: info.version,
        ...(info.enginesNode === undefined ? {} : { enginesNode: info.enginesNode }),
      };
  }
  try {
    const stat = fs.statSync(deployment.node);
    facts.nodeFile = { regular: stat.isFile(), mode: stat.mode & 0o7777 };
  } catch {
    // absent here: render may run on a staging machine
  }
  const version = fs.existsSync(deployment.node) ? nodeVersionAt(deployment.node) : undefined;
  if (version !== undefined) facts.nodeVersion = version;
  return facts;
}
